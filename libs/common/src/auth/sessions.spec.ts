import { csrfMatches, Session, sessionToken } from './sessions';

const TOKEN = 'A'.repeat(21) + '-_' + 'b'.repeat(20);

describe('sessionToken', () => {
  it('finds the session cookie among others', () => {
    expect(sessionToken(`lm_session=${TOKEN}`)).toBe(TOKEN);
    expect(sessionToken(`a=1; lm_session=${TOKEN}; b=2`)).toBe(TOKEN);
    expect(sessionToken(`a=1;lm_session=${TOKEN}`)).toBe(TOKEN);
  });

  it('ignores another cookie whose name ends the same, and malformed values', () => {
    expect(sessionToken(`x_lm_session=${TOKEN}`)).toBeNull();
    expect(sessionToken(`x_lm_session=${TOKEN}; lm_session=${TOKEN}`)).toBe(TOKEN);
    expect(sessionToken('lm_session=short')).toBeNull();
    expect(sessionToken(`lm_session=${TOKEN}x`)).toBeNull();
    expect(sessionToken(`lm_session=${TOKEN.slice(1)}=`)).toBeNull();
    expect(sessionToken(undefined)).toBeNull();
    expect(sessionToken('')).toBeNull();
  });
});

describe('csrfMatches', () => {
  const session: Session = { userId: 1, csrf: TOKEN, created: 0, renewed: 0 };

  it('accepts the session token only', () => {
    expect(csrfMatches(session, TOKEN)).toBe(true);
    expect(csrfMatches(session, TOKEN.replace('A', 'B'))).toBe(false);
    expect(csrfMatches(session, TOKEN.slice(1))).toBe(false);
    expect(csrfMatches(session, undefined)).toBe(false);
    expect(csrfMatches(session, [TOKEN])).toBe(false);
    expect(csrfMatches(session, '')).toBe(false);
  });
});
