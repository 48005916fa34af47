/**
 * Securing the endpoints: basic auth on every path (health
 * endpoints open), HTTPS with a generated certificate, both following reloads.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { ConfigError, parseConfig, type ExporterConfig } from '../../src/config/load';
import { Exporter } from '../../src/exporter';
import bcrypt from 'bcryptjs';
import express from 'express';
import pino from 'pino';
import type { AddressInfo } from 'node:net';
import { basicAuthGuard, checkCredentials, parseBasicAuth } from '../../src/exporters/auth';
import { BcryptWorker, type BcryptVerifier } from '../../src/exporters/bcrypt-worker';
import { generateSelfSignedCert } from '../../simulator/core/tls';
import { Secret } from '../../src/util/secret';
import { silentLogger } from '../support/collect';
import { constantCollector } from '../support/fakes';
import { eventually } from '../support/cli-process';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'websec-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const collector = constantCollector(1);

function config(web: Record<string, unknown>, env: Record<string, string> = {}): ExporterConfig {
  return parseConfig(
    {
      web: { listenAddress: '127.0.0.1', port: 0, ...web },
      targets: [{ name: 't1', kind: 'management', url: 'http://127.0.0.1:9', username: 'u', password: 'p' }],
    },
    { env },
  );
}

const basic = (user: string, password: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});

describe('basic auth', () => {
  const passwordFile = (): string => {
    const file = join(dir, 'grafana-agent.password');
    writeFileSync(file, 'from a file\n');
    return file;
  };

  it('answers 401 without or with wrong credentials, 200 with right ones; health endpoints stay open', async () => {
    const exporter = new Exporter(
      config({ basicAuthUsers: { prometheus: '${SCRAPE_PASSWORD}', agent: { passwordFile: passwordFile() } } }, { SCRAPE_PASSWORD: 's3cret:with colon' }),
      silentLogger,
      { collectorsFor: () => [collector], processMetrics: false },
    );
    await exporter.start();
    try {
      const base = exporter.address();
      for (const path of ['/metrics', '/probe?target=t1', '/']) {
        const anonymous = await fetch(`${base}${path}`);
        expect(anonymous.status).toBe(401);
        expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="dataprotect-exporter", charset="UTF-8"');
        expect((await fetch(`${base}${path}`, { headers: basic('prometheus', 'wrong') })).status).toBe(401);
        expect((await fetch(`${base}${path}`, { headers: basic('nobody', 's3cret:with colon') })).status).toBe(401);
        expect((await fetch(`${base}${path}`, { headers: basic('agent', 's3cret:with colon') })).status).toBe(401); // another user's password
        expect((await fetch(`${base}${path}`, { headers: { authorization: 'Bearer s3cret:with colon' } })).status).toBe(401);
        expect((await fetch(`${base}${path}`, { headers: basic('prometheus', 's3cret:with colon') })).status).toBe(200);
        expect((await fetch(`${base}${path}`, { headers: basic('agent', 'from a file') })).status).toBe(200);
      }
      // Every other path asks for credentials too: what exists is not told to strangers.
      expect((await fetch(`${base}/nope`)).status).toBe(401);
      expect((await fetch(`${base}/nope`, { headers: basic('prometheus', 's3cret:with colon') })).status).toBe(404);
      const health = await fetch(`${base}/healthz`);
      expect([health.status, health.headers.get('content-type'), await health.text()]).toEqual([200, 'text/plain; charset=utf-8', 'ok\n']);
      expect((await fetch(`${base}/healthz?verbose`, { method: 'HEAD' })).status).toBe(200);
      await exporter.runtime.runOnce();
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${base}/metrics`, { headers: basic('prometheus', 's3cret:with colon') })).text();
      expect(metrics).toContain('dataprotect_asset_size_bytes{target="t1"');

      // A reload applies to the next request: the rotated password replaces the old one.
      await exporter.applyConfig(config({ basicAuthUsers: { prometheus: 'rotated' } }));
      expect((await fetch(`${base}/metrics`, { headers: basic('prometheus', 's3cret:with colon') })).status).toBe(401);
      expect((await fetch(`${base}/metrics`, { headers: basic('prometheus', 'rotated') })).status).toBe(200);
      expect((await fetch(`${base}/metrics`, { headers: basic('agent', 'from a file') })).status).toBe(401);
      // ... and removing basicAuthUsers opens the endpoints again.
      await exporter.applyConfig(config({}));
      expect((await fetch(`${base}/metrics`)).status).toBe(200);
    } finally {
      await exporter.stop();
    }
  });

  it('reads credentials from the header correctly and compares them against every user', async () => {
    expect(parseBasicAuth(basic('u', 'p:q')['authorization'])).toEqual({ user: 'u', password: 'p:q' });
    expect(parseBasicAuth(`basic ${Buffer.from('u:').toString('base64')}`)).toEqual({ user: 'u', password: '' });
    expect(parseBasicAuth(`Basic ${Buffer.from('no colon').toString('base64')}`)).toBeUndefined();
    expect(parseBasicAuth('Basic')).toBeUndefined();
    expect(parseBasicAuth(undefined)).toBeUndefined();
    const users = { a: new Secret('pa'), b: new Secret('pb') };
    expect(await checkCredentials(users, 'a', 'pa')).toBe('accepted');
    expect(await checkCredentials(users, 'b', 'pb')).toBe('accepted');
    expect(await checkCredentials(users, 'a', 'pb')).toBe('refused');
    expect(await checkCredentials(users, 'a', 'p')).toBe('refused');
    expect(await checkCredentials(users, 'ap', 'a')).toBe('refused'); // "a" + "pa" must not match "ap" + "a"
  });

  it('accepts bcrypt hashes as Prometheus web config does, and a hash is never a password', async () => {
    const hash = bcrypt.hashSync('scrape-me', 4);
    const users = { prometheus: new Secret(hash), plain: new Secret('pp') };
    expect(await checkCredentials(users, 'prometheus', 'scrape-me')).toBe('accepted');
    expect(await checkCredentials(users, 'prometheus', 'scrape-me')).toBe('accepted'); // remembered
    expect(await checkCredentials(users, 'prometheus', 'wrong')).toBe('refused');
    expect(await checkCredentials(users, 'prometheus', hash)).toBe('refused');
    expect(await checkCredentials(users, 'nobody', 'scrape-me')).toBe('refused');
    expect(await checkCredentials(users, 'plain', 'pp')).toBe('accepted');
    expect(await checkCredentials(users, 'plain', hash)).toBe('refused');
  });

  it('refuses truncated bcrypt hashes, unreadable password files and user names with a colon, naming the field', () => {
    const problems = (web: Record<string, unknown>): string[] => {
      try {
        config(web);
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
        throw error;
      }
      return [];
    };
    expect(problems({ basicAuthUsers: { prometheus: '$2y$10$abcdefghijklmnopqrstuv' } })).toEqual([
      'web.basicAuthUsers.prometheus: looks like a bcrypt hash but is not a complete one ($2y$NN$ and 53 characters)',
    ]);
    expect(problems({ basicAuthUsers: { prometheus: bcrypt.hashSync('x', 4) } })).toEqual([]);
    expect(problems({ basicAuthUsers: { prometheus: { passwordFile: join(dir, 'missing') } } })).toEqual([
      `web.basicAuthUsers.prometheus.passwordFile: cannot read ${join(dir, 'missing')} (ENOENT)`,
    ]);
    expect(problems({ basicAuthUsers: { 'a:b': 'x' } })[0]).toMatch(/^web\.basicAuthUsers.*no colon/);
    expect(problems({ basicAuthUsers: {} })).toEqual(['web.basicAuthUsers: list at least one user, or remove basicAuthUsers']);
    // a refusal pays one comparison at the highest cost: a user of a cheaper hash would be refused sooner, and so told apart
    expect(problems({ basicAuthUsers: { prometheus: bcrypt.hashSync('x', 5), agent: bcrypt.hashSync('y', 4), plain: 'z' } })).toEqual([
      'web.basicAuthUsers: bcrypt hashes of different costs (prometheus: 5, agent: 4) let refusal times tell users apart: hash every password at one cost',
    ]);
    expect(problems({ basicAuthUsers: { prometheus: bcrypt.hashSync('x', 4), agent: bcrypt.hashSync('y', 4), plain: 'z' } })).toEqual([]);
    // The password is a Secret: it never prints.
    expect(JSON.stringify(config({ basicAuthUsers: { prometheus: 'plain' } }).web)).not.toContain('plain');
  });

  it('refuses a bcrypt hash no bcrypt verifies (cost outside 4 to 31, revision other than a, b, y), naming the field', async () => {
    const tail = bcrypt.hashSync('scrape-me', 4).slice(7); // salt and digest
    // Accepted, such a hash would refuse its user's right password forever, and at a cost above 31 the decoy of every refusal would be
    // a comparison of 2^31 rounds: the bcrypt thread busy for days, every login past its queue answered 503.
    expect(await checkCredentials({ prometheus: new Secret(`$2y$45$${tail}`) }, 'prometheus', 'scrape-me')).toBe('refused');
    for (const prefix of ['$2y$45$', '$2y$03$', '$2y$00$', '$2x$04$', '$2$04$']) {
      let problems: string[] = [];
      try {
        config({ basicAuthUsers: { prometheus: `${prefix}${tail}` } });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        problems = error.problems;
      }
      expect({ prefix, problems }).toEqual({ prefix, problems: [expect.stringMatching(/^web\.basicAuthUsers\.prometheus: .*bcrypt/)] });
      expect(problems.join()).not.toContain(tail);
    }
    for (const prefix of ['$2a$04$', '$2b$04$', '$2y$04$']) expect(() => config({ basicAuthUsers: { prometheus: `${prefix}${tail}` } })).not.toThrow();
  });
});

describe('basic auth under a flood of bad logins', () => {
  /** A verifier that records the cost factor of every hash it is asked to compare against. */
  function recordingVerifier(): BcryptVerifier & { costs: number[] } {
    const costs: number[] = [];
    return {
      costs,
      full: false,
      pending: 0,
      compare: async (password, hash) => {
        costs.push(Number(hash.slice(4, 6)));
        return bcrypt.compareSync(password, hash);
      },
    };
  }

  it('never runs bcrypt on the event loop: 200 parallel bad logins over HTTP, /healthz answers meanwhile', async () => {
    const hash = bcrypt.hashSync('scrape-me', 4);
    const onTheLoop = ['compare', 'compareSync', 'hash', 'hashSync'].map((name) => jest.spyOn(bcrypt, name as 'compare'));
    const exporter = new Exporter(config({ basicAuthUsers: { prometheus: hash, agent: 'plain-password' } }), silentLogger, {
      collectorsFor: () => [collector],
      processMetrics: false,
    });
    await exporter.start();
    try {
      const base = exporter.address();
      let answered = 0;
      const flood = Array.from({ length: 200 }, (_, i) =>
        fetch(`${base}/metrics`, { headers: basic(['prometheus', 'agent', `nobody-${i}`][i % 3] as string, `wrong-${i}`) }).then(async (response) => {
          await response.arrayBuffer();
          answered += 1;
          return response.status;
        }),
      );
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      const statuses = await Promise.all(flood);
      // Refused (401) or, past the verifier's queue, shed (503): never let in, never an error.
      expect(statuses.filter((status) => status !== 401 && status !== 503)).toEqual([]);
      expect(statuses).toContain(401);
      expect(answered).toBe(200);
      expect((await fetch(`${base}/metrics`, { headers: basic('prometheus', 'scrape-me') })).status).toBe(200);
      expect((await fetch(`${base}/metrics`, { headers: basic('agent', 'plain-password') })).status).toBe(200);
      for (const spy of onTheLoop) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of onTheLoop) spy.mockRestore();
      await exporter.stop();
    }
  });

  it('refuses an unknown user, a wrong plain password and a wrong bcrypt password after the same work', async () => {
    const users = { hashed: new Secret(bcrypt.hashSync('right', 5)), plain: new Secret('right'), file: new Secret('also right') };
    const refusals: Array<[string, string]> = [
      ['nobody', 'right'],
      ['plain', 'wrong'],
      ['file', 'wrong'],
      ['hashed', 'wrong'],
      ['', ''],
    ];
    for (const [user, password] of refusals) {
      const verifier = recordingVerifier();
      expect(await checkCredentials(users, user, password, verifier)).toBe('refused');
      // one bcrypt comparison each, at the cost of the configured hash
      expect({ user, costs: verifier.costs }).toEqual({ user, costs: [5] });
    }
    // Without any bcrypt user, refusals still pay one comparison at the default cost.
    const plainOnly = recordingVerifier();
    expect(await checkCredentials({ plain: new Secret('right') }, 'nobody', 'x', plainOnly)).toBe('refused');
    expect(await checkCredentials({ plain: new Secret('right') }, 'plain', 'x', plainOnly)).toBe('refused');
    expect(plainOnly.costs).toEqual([10, 10]);
    // Verified credentials are remembered: the next check of the same ones costs no comparison.
    const accepted = recordingVerifier();
    expect(await checkCredentials(users, 'plain', 'right', accepted)).toBe('accepted');
    expect(await checkCredentials(users, 'plain', 'right', accepted)).toBe('accepted');
    expect(await checkCredentials(users, 'hashed', 'right', accepted)).toBe('accepted');
    expect(await checkCredentials(users, 'hashed', 'right', accepted)).toBe('accepted');
    expect(accepted.costs).toEqual([5, 5]);
  });

  it('while the verifier is full, sheds new credentials at once and lets remembered ones in', () => {
    const users = { plain: new Secret('right'), hashed: new Secret(bcrypt.hashSync('also right', 4)) };
    const full: BcryptVerifier & { costs: number[] } = { ...recordingVerifier(), full: true, pending: 32 };
    // remembered by an earlier scrape (through a verifier with room)
    const room = recordingVerifier();
    return Promise.all([checkCredentials(users, 'plain', 'right', room), checkCredentials(users, 'hashed', 'also right', room)]).then((verdicts) => {
      expect(verdicts).toEqual(['accepted', 'accepted']);
      // answered synchronously, without a comparison: a flood past the queue costs no promise per request
      expect(checkCredentials(users, 'plain', 'right', full)).toBe('accepted');
      expect(checkCredentials(users, 'hashed', 'also right', full)).toBe('accepted');
      for (const [user, password] of [['plain', 'wrong'], ['hashed', 'wrong'], ['nobody', 'right'], ['', '']]) {
        expect(checkCredentials(users, user as string, password as string, full)).toBe('shed');
      }
      expect(full.costs).toEqual([]);
    });
  });

  /** Threads of this process at the lowest scheduling priority (nice 19), from /proc (Linux). */
  function lowestPriorityThreads(): number {
    return readdirSync('/proc/self/task').filter((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // fields after "(comm) ": state is field 3, nice field 19
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16] === '19';
    }).length;
  }

  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child?.exitCode === null) child.kill('SIGKILL'); // only when the test below failed
  });

  it('never keeps the process alive: a process whose worker thread has started and compared exits by itself', async () => {
    const script = `
      const { BcryptWorker } = require('./src/exporters/bcrypt-worker');
      const worker = new BcryptWorker();
      worker.start();
      const alive = setInterval(() => undefined, 1000); // until the comparison is back: then only the thread is left
      worker.compare('right', require('bcryptjs').hashSync('right', 4)).then((matched) => {
        process.stdout.write(String(matched));
        clearInterval(alive);
      });`;
    const started = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: join(__dirname, '..', '..'), stdio: ['ignore', 'pipe', 'inherit'] });
    child = started;
    let out = '';
    started.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    // A referenced thread would hold the child until the test's timeout, and jest's workers with it.
    const code = await new Promise<number | null>((resolve) => started.once('exit', resolve));
    expect({ code, out }).toEqual({ code: 0, out: 'true' });
  });

  it('compares on a worker thread at the lowest priority and sheds past its queue, answering 503 at once', async () => {
    const before = lowestPriorityThreads();
    const worker = new BcryptWorker(2);
    try {
      const hash = bcrypt.hashSync('right', 4);
      const first = worker.compare('right', hash);
      const second = worker.compare('wrong', hash);
      expect(worker.full).toBe(true);
      expect(await Promise.all([first, second])).toEqual([true, false]);
      expect(worker.pending).toBe(0);
      // the comparing thread yields the CPU to the event loop (Linux schedules threads on their own)
      expect(lowestPriorityThreads()).toBe(before + 1);
    } finally {
      await worker.close();
    }
    expect(lowestPriorityThreads()).toBe(before);

    const busy: BcryptVerifier = { full: true, pending: 32, compare: () => Promise.reject(new Error('not asked when full')) };
    const app = express();
    app.get('/metrics', basicAuthGuard(() => ({ u: new Secret('p') }), silentLogger, busy), (_req, res) => {
      res.send('metrics');
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, { headers: basic('u', 'x') });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await response.text()).toBe('Too many authentication attempts\n');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('TLS', () => {
  /** The certificate's SHA-256 fingerprint the server presents to a new connection. */
  function presentedFingerprint(port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
        resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
        socket.end();
      });
      socket.on('error', reject);
    });
  }

  it('serves HTTPS with the configured certificate, with basic auth, and takes a renewed certificate on reload', async () => {
    const first = await generateSelfSignedCert();
    const certFile = join(dir, 'tls.crt');
    const keyFile = join(dir, 'tls.key');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const web = { tls: { certFile, keyFile }, basicAuthUsers: { prometheus: 'pw' } };
    const exporter = new Exporter(config(web), silentLogger, { collectorsFor: () => [collector], processMetrics: false });
    await exporter.start();
    const trustFirst = new Agent({ connect: { ca: first.cert } });
    try {
      const base = exporter.address();
      expect(base).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const port = Number(new URL(base).port);
      expect((await undiciFetch(`${base}/healthz`, { dispatcher: trustFirst })).status).toBe(200);
      expect((await undiciFetch(`${base}/metrics`, { dispatcher: trustFirst })).status).toBe(401);
      const authorized = await undiciFetch(`${base}/metrics`, { dispatcher: trustFirst, headers: basic('prometheus', 'pw') });
      expect(authorized.status).toBe(200);
      expect(await authorized.text()).toContain('dataprotect_exporter_build_info');
      // Plain HTTP is not served, and a client that does not trust the certificate is refused.
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      await expect(fetch(`${base}/healthz`)).rejects.toThrow();
      expect(await presentedFingerprint(port)).toBe(new X509Certificate(first.cert).fingerprint256);

      // Renewed certificate (cert-manager, a new Secret): picked up on reload by new connections.
      const second = await generateSelfSignedCert();
      writeFileSync(certFile, second.cert);
      writeFileSync(keyFile, second.key);
      await exporter.applyConfig(config(web));
      expect(await presentedFingerprint(port)).toBe(new X509Certificate(second.cert).fingerprint256);

      // Unreadable files: the reload is refused before anything changes.
      await expect(exporter.applyConfig(config({ ...web, tls: { certFile: join(dir, 'gone.crt'), keyFile } }))).rejects.toThrow(
        `web.tls.certFile: cannot read ${join(dir, 'gone.crt')} (ENOENT)`,
      );
      expect(await presentedFingerprint(port)).toBe(new X509Certificate(second.cert).fingerprint256);

      // A key that is not the certificate's, or garbage: refused naming the setting and the file.
      const strayKey = join(dir, 'stray.key');
      writeFileSync(strayKey, (await generateSelfSignedCert()).key);
      await expect(exporter.applyConfig(config({ ...web, tls: { certFile, keyFile: strayKey } }))).rejects.toThrow(
        new ConfigError([`web.tls.keyFile: the key in ${strayKey} does not belong to the certificate in ${certFile}`]),
      );
      const garbage = join(dir, 'garbage.crt');
      writeFileSync(garbage, 'garbage\n');
      await expect(exporter.applyConfig(config({ ...web, tls: { certFile: garbage, keyFile } }))).rejects.toMatchObject({
        problems: [expect.stringMatching(`^web\\.tls\\.certFile: ${garbage} holds no usable PEM certificate`)],
      });
      expect(await presentedFingerprint(port)).toBe(new X509Certificate(second.cert).fingerprint256);
    } finally {
      await trustFirst.close();
      await exporter.stop();
    }
  });

  it('serves a certificate renewed in its files without a reload; a pair that does not match keeps the one served', async () => {
    const first = await generateSelfSignedCert();
    const renewDir = mkdtempSync(join(dir, 'renew-'));
    const certFile = join(renewDir, 'tls.crt');
    const keyFile = join(renewDir, 'tls.key');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    const web = { tls: { certFile, keyFile } };
    const lines: Array<{ msg?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as { msg?: string }) });
    const logged = (msg: string): boolean => lines.some((line) => line.msg === msg);
    const exporter = new Exporter(config(web), logger, { collectorsFor: () => [collector], processMetrics: false, tlsPollMs: 20 });
    await exporter.start();
    try {
      const port = Number(new URL(exporter.address()).port);
      const fingerprint = (cert: string): string => new X509Certificate(cert).fingerprint256;
      expect(await presentedFingerprint(port)).toBe(fingerprint(first.cert));

      // A certificate without its key yet (or a key of another): not taken, the first stays.
      const second = await generateSelfSignedCert();
      writeFileSync(certFile, second.cert);
      await eventually(() => logged('the changed TLS files are not used: the certificate served stays'), 10_000, 'the refusal');
      expect(await presentedFingerprint(port)).toBe(fingerprint(first.cert));

      // Its key follows (cert-manager's renewal, a new Secret): new connections get it, with no reload.
      writeFileSync(keyFile, second.key);
      await eventually(() => logged('the TLS files changed: new connections get the new certificate'), 10_000, 'the renewal');
      expect(await presentedFingerprint(port)).toBe(fingerprint(second.cert));
    } finally {
      await exporter.stop();
    }
  });
});
