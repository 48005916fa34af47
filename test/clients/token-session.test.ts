import type { HttpResponse } from '../../src/clients/http';
import { TokenSession, type IssuedToken } from '../../src/clients/token-session';

function sessionOf(login: () => Promise<IssuedToken>, clock?: () => number): TokenSession {
  return new TokenSession({ login, loginEndpoint: '/login', ...(clock ? { clock } : {}) });
}

function answer(status: number): HttpResponse {
  return { status, headers: {}, text: JSON.stringify({ reason: 'token t1 is invalid' }) };
}

describe('token session', () => {
  it('shares one in-flight login between concurrent callers', async () => {
    let logins = 0;
    let release: () => void = () => undefined;
    const session = sessionOf(async () => {
      logins += 1;
      await new Promise<void>((resolve) => (release = resolve));
      return { value: `t${logins}`, expiresInSeconds: 3600 };
    });
    const waiting = Promise.all(Array.from({ length: 20 }, () => session.get()));
    release();
    expect(new Set(await waiting)).toEqual(new Set(['t1']));
    expect(logins).toBe(1);
    expect(await session.get()).toBe('t1');
  });

  it('renews shortly before the announced lifetime runs out, not before', async () => {
    let now = 0;
    let logins = 0;
    const session = sessionOf(async () => ({ value: `t${++logins}`, expiresInSeconds: 600 }), () => now);
    expect(await session.get()).toBe('t1');
    now = 539_000; // 600 s minus the 60 s margin is 540 s
    expect(await session.get()).toBe('t1');
    now = 540_000;
    expect(await session.get()).toBe('t2');
  });

  it('keeps a token without an announced lifetime until it is refused', async () => {
    let now = 0;
    let logins = 0;
    const session = sessionOf(async () => ({ value: `t${++logins}`, expiresInSeconds: undefined }), () => now);
    expect(await session.get()).toBe('t1');
    now = 365 * 24 * 3600 * 1000;
    expect(await session.get()).toBe('t1');
    session.invalidate('t1');
    expect(await session.get()).toBe('t2');
  });

  it('replaces a rejected token once, even when several requests report it', async () => {
    let logins = 0;
    const session = sessionOf(async () => ({ value: `t${++logins}`, expiresInSeconds: 3600 }));
    const old = await session.get();
    session.invalidate(old);
    const first = session.get();
    session.invalidate(old); // a second request saw the same 401: no second login
    expect(await Promise.all([first, session.get()])).toEqual(['t2', 't2']);
    session.invalidate(old);
    expect(await session.get()).toBe('t2');
    expect(logins).toBe(2);
  });

  it('lets the next caller try again after a failed login, and a caller abort its own wait', async () => {
    let attempt = 0;
    const session = sessionOf(async () => {
      attempt += 1;
      if (attempt === 1) throw new Error('login down');
      return { value: 'ok', expiresInSeconds: 3600 };
    });
    await expect(session.get()).rejects.toThrow('login down');
    expect(await session.get()).toBe('ok');

    const hanging = sessionOf(() => new Promise(() => undefined));
    const controller = new AbortController();
    const wait = hanging.get(controller.signal);
    controller.abort();
    await expect(wait).rejects.toMatchObject({ kind: 'aborted', endpoint: '/login' });
  });

  it('sends again once with a fresh token after a 401, and fails with auth when that one is refused too', async () => {
    let logins = 0;
    const session = sessionOf(async () => ({ value: `t${++logins}`, expiresInSeconds: 3600 }));
    const sent: string[] = [];
    const refuseFirst = await session.send('/things', undefined, async (token) => {
      sent.push(token);
      return answer(token === 't1' ? 401 : 200);
    });
    expect(refuseFirst.status).toBe(200);
    expect(sent).toEqual(['t1', 't2']);

    const error = await session.send('/things', undefined, async (token) => (sent.push(token), answer(401))).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'auth', status: 401, endpoint: '/things' });
    expect((error as Error).message).not.toContain('t1');
    expect(sent).toEqual(['t1', 't2', 't2', 't3']);
    expect(await session.get()).toBe('t4'); // the refused fresh token is not used again
  });

  it('releases the token of a login still running, for the logout', async () => {
    let finish: () => void = () => undefined;
    const session = sessionOf(async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      return { value: 't1', expiresInSeconds: 3600 };
    });
    const getting = session.get();
    const released = session.release();
    finish();
    expect(await released).toBe('t1');
    expect(await getting).toBe('t1');
    expect(await session.release()).toBeUndefined();
  });
});
