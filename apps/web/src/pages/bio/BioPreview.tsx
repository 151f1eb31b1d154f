import { BioForm, NETWORKS } from './model';

/**
 * The bio page as its public address will show it (apps/api/src/bio/bio-page.ts: one column,
 * the avatar, the title or else the name, the description, a button per link, the social links,
 * in the light or dark theme), drawn from the form as it is typed. The public page itself cannot
 * be framed (frame-ancestors 'none'), and the dashboard's CSP loads no outside image: the avatar
 * is a placeholder here.
 */
export function BioPreview(props: { form: BioForm }) {
  const f = props.form;
  const heading = f.title.trim() || f.name.trim() || 'Untitled';
  const buttons = f.links.filter((l) => l.title.trim() !== '');
  const socials = NETWORKS.filter(([n]) => (f.socials[n] ?? '').trim() !== '');
  return (
    <div className={`bio-preview bio-${f.theme}`} data-testid="bio-preview">
      <div className="bio-column">
        {f.avatar.trim() && (
          <span
            className="bio-avatar"
            role="img"
            aria-label="Avatar (the picture shows on the page)"
          >
            {heading.slice(0, 1).toUpperCase()}
          </span>
        )}
        <h3 className="bio-heading">{heading}</h3>
        {f.description.trim() && <p className="bio-about">{f.description}</p>}
        {buttons.length > 0 ? (
          <ul className="bio-links" aria-label="Buttons">
            {buttons.map((l) => (
              <li key={l.key}>
                <span className="bio-button">{l.title}</span>
              </li>
            ))}
          </ul>
        ) : socials.length ? null : (
          <p className="bio-empty">No links yet.</p>
        )}
        {socials.length > 0 && (
          <ul className="bio-socials" aria-label="Social links">
            {socials.map(([n, label]) => (
              <li key={n}>
                <span>{label}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
