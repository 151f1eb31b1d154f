/** The longest countdown a splash page shows. */
export const MAX_COUNTDOWN = 600;

export const SPLASH_DOC = {
  title: 'Heading of the page ("" for none)',
  message: 'Text of the page',
  image: 'An image shown on the page: absolute http(s) URL ("" for none)',
  link: 'A link shown with the image (the image links to it too): absolute http(s) URL ("" for none)',
  countdown: `Seconds before the visitor is forwarded (0 to ${MAX_COUNTDOWN}); 0 = only when the visitor clicks the button`,
  button: 'Text of the button that forwards to the link’s target',
};
