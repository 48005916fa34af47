import { TokenSession } from '../../src/clients/management/session';

describe('management token session', () => {
  it('shares one in-flight login between concurrent callers', async () => {
    let logins = 0;
    let release: () => void = () => undefined;
    const session = new TokenSession(async () => {
      logins += 1;
      await new Promise<void>((resolve) => (release = resolve));
      return { accessToken: `t${logins}`, expiresInSeconds: 3600 };
    });
    const waiting = Promise.all(Array.from({ length: 20 }, () => session.get()));
    release();
    expect(new Set(await waiting)).toEqual(new Set(['t1']));
    expect(logins).toBe(1);
    expect(await session.get()).toBe('t1');
    expect(logins).toBe(1);
  });

  it('renews shortly before expires_in runs out, not before', async () => {
    let now = 0;
    let logins = 0;
    const session = new TokenSession(async () => ({ accessToken: `t${++logins}`, expiresInSeconds: 600 }), () => now);
    expect(await session.get()).toBe('t1');
    now = 539_000; // 600 s minus the 60 s margin is 540 s
    expect(await session.get()).toBe('t1');
    now = 540_000;
    expect(await session.get()).toBe('t2');
  });

  it('replaces a rejected token once, even when several requests report it', async () => {
    let logins = 0;
    const session = new TokenSession(async () => ({ accessToken: `t${++logins}`, expiresInSeconds: 3600 }));
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
    const session = new TokenSession(async () => {
      attempt += 1;
      if (attempt === 1) throw new Error('login down');
      return { accessToken: 'ok', expiresInSeconds: 3600 };
    });
    await expect(session.get()).rejects.toThrow('login down');
    expect(await session.get()).toBe('ok');

    const hanging = new TokenSession(() => new Promise(() => undefined));
    const controller = new AbortController();
    const wait = hanging.get(controller.signal);
    controller.abort();
    await expect(wait).rejects.toMatchObject({ kind: 'aborted' });
  });
});
