#!/usr/bin/env node
// The SMTP server of the tests, a separate process (the `smtp-server` package) on 127.0.0.1:
//   node test/support/smtp-test-server.mjs CONFIG.json
// CONFIG: { dir, key, cert, username, password }. It listens three times, on free ports:
// `implicit` (TLS from the first byte, as smtps://), `starttls` (plain, upgraded by STARTTLS) and
// `plain` (no TLS offered). Every listener requires AUTH PLAIN/LOGIN with the configured username
// and password (and refuses AUTH before TLS, except on `plain`), and refuses mail to any address
// at reject.test, and any message whose text holds REFUSE-THIS-MESSAGE (554). Each accepted message is written whole to DIR/<n>.eml (first to a .part name,
// renamed when complete). When all listen it prints one JSON line { implicit, starttls, plain };
// it stops on SIGTERM.
import { readFileSync, renameSync, createWriteStream, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { timingSafeEqual, createHash } from 'node:crypto';
import { SMTPServer } from 'smtp-server';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const key = readFileSync(config.key);
const cert = readFileSync(config.cert);
let count = 0;

const digest = (text) =>
  createHash('sha256')
    .update(String(text ?? ''))
    .digest();
const same = (a, b) => timingSafeEqual(digest(a), digest(b));

function server(options) {
  return new SMTPServer({
    key,
    cert,
    authMethods: ['PLAIN', 'LOGIN'],
    size: 200 * 1024 * 1024,
    logger: false,
    disableReverseLookup: true,
    ...options,
    onAuth(auth, _session, done) {
      if (same(auth.username, config.username) && same(auth.password, config.password))
        done(null, { user: auth.username });
      else done(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, done) {
      if (address.address.endsWith('@reject.test'))
        done(Object.assign(new Error('No such user here'), { responseCode: 550 }));
      else done();
    },
    onData(stream, _session, done) {
      const n = ++count;
      const part = join(config.dir, `${process.pid}-${n}.part`);
      pipeline(stream, createWriteStream(part)).then(() => {
        if (stream.sizeExceeded) return done(Object.assign(new Error('Message too large'), { responseCode: 552 }));
        if (statSync(part).size < 1024 * 1024 && readFileSync(part, 'utf8').includes('REFUSE-THIS-MESSAGE')) {
          rmSync(part);
          return done(Object.assign(new Error('Message refused by policy'), { responseCode: 554 }));
        }
        renameSync(part, join(config.dir, `${String(n).padStart(6, '0')}.eml`));
        done(null, `queued as ${n}`);
      }, done);
    },
  });
}

const listeners = {
  implicit: server({ secure: true }),
  starttls: server({ secure: false }),
  plain: server({ secure: false, disabledCommands: ['STARTTLS'], allowInsecureAuth: true }),
};
const ports = {};
await Promise.all(
  Object.entries(listeners).map(
    ([name, s]) =>
      new Promise((resolve, reject) => {
        s.on('error', () => undefined); // a client's broken connection is not the server's end
        s.server.once('error', reject);
        s.listen(0, '127.0.0.1', () => {
          ports[name] = s.server.address().port;
          resolve();
        });
      }),
  ),
);
console.log(JSON.stringify(ports));
process.on('SIGTERM', () => {
  for (const s of Object.values(listeners)) s.close();
  setTimeout(() => process.exit(0), 200).unref();
});
