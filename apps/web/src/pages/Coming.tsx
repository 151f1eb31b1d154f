/** A page of the navigation that is not built yet (issue 30 fills them in): its heading, and a word. */
export function Coming(props: { title: string }) {
  return (
    <>
      <h1>{props.title}</h1>
      <p>This page is coming soon. Meanwhile, everything it will offer is in the API.</p>
    </>
  );
}
