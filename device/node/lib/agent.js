// The device agent: serves NodeDevices (and DataDevices, lib/data.js) over the HTTP device protocol
// /v1 (device/PROTOCOL.md), on Node's own `http` module, answering exactly as typestar-device
// (src/device/agent.cpp) does: bearer token on every request, no Origin header (not even an empty
// one), bounded header and body sizes, sessions with request_id idempotence and `seq` retries,
// /v1/run, WebDriver-style errors, idle sessions reaped, and the same fault injection for testing
// clients.
'use strict';

const crypto = require('crypto');
const http = require('http');

const { DeviceError, NondeterminismError, OUTSIDE_PURPOSE } = require('./device');
const { isValue } = require('./data');

const PROTOCOL = 'typestar-device/1';

/// JSON with object keys sorted and no spaces: byte-identical to typestar-device's answers
/// (nlohmann::json keeps object keys in a std::map).
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function errorBody(code, message) {
  return { value: { error: code, message, stacktrace: '' } };
}

function reply(status, body, headers = {}) {
  return { status, body: canonical(body), headers };
}

function error(status, code, message) {
  const headers = status === 401 ? { 'WWW-Authenticate': 'Bearer realm="typestar-device"' } : {};
  return reply(status, errorBody(code, message), headers);
}

/// A device's failure as the protocol's error: a timing violation with its data (PROTOCOL.md: the
/// client re-runs the word, or names the callback when it repeats), answers that differ as
/// `nondeterminism` with its data, anything else `device error`.
function deviceFailure(e, name) {
  if (e instanceof DeviceError && e.timing) {
    const body = errorBody('timing violation', e.message);
    body.value.timing = e.timing;
    return reply(500, body);
  }
  if (e instanceof NondeterminismError) {  // with its data when it has them: the client's NondeterminismError
    const body = errorBody('nondeterminism', e.message);
    if (e.data) body.value.nondeterminism = e.data;
    return reply(500, body);
  }
  return error(500, 'device error', e instanceof DeviceError ? e.message : `${name}: ${e && e.message ? e.message : e}`);
}

/// Compares in time independent of where the strings differ.
function equalConstantTime(a, b) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  const n = Math.max(x.length, y.length);
  let diff = x.length === y.length ? 0 : 1;
  for (let i = 0; i < n; ++i) diff |= (i < x.length ? x[i] : 0) ^ (i < y.length ? y[i] : 0);
  return diff === 0;
}

const isUnsignedInteger = (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/// The deepest nesting of arrays and objects a request body may have (device/PROTOCOL.md, limits):
/// a deeper body is refused with 400 before it is parsed, so no answer ever walks it recursively.
const MAX_JSON_DEPTH = 64;

/// Client text for an error message: at most 128 characters (then `...`), control characters
/// escaped (device/PROTOCOL.md, limits) — never the whole, unbounded input.
function cut(text) {
  return text.length <= 128 ? text : `${text.slice(0, 128)}...`;
}

function echo(text) {
  return cut(text).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/// What a JSON value is, in words (for messages that must not echo it).
function kindOf(value) {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/// True when `text` nests arrays/objects deeper than `max` (brackets inside strings do not count).
/// Linear, no recursion: it bounds the depth before JSON.parse, canonical() or an error message
/// could recurse over it.
function jsonDeeperThan(text, max) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; ++i) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) ++i;  // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      --depth;
    }
  }
  return false;
}

/// Headers a request may carry at most once (device/PROTOCOL.md, Transport); a repeated one is a
/// 400 — Node's parser would keep the first and drop the rest ("the first one wins").
const SINGLE_HEADERS = ['authorization', 'content-length', 'host', 'origin', 'transfer-encoding'];

function repeatedHeader(rawHeaders) {
  const seen = new Set();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (!SINGLE_HEADERS.includes(name)) continue;
    if (seen.has(name)) return rawHeaders[i];
    seen.add(name);
  }
  return null;
}

/// The token of an `Authorization` value: the scheme `Bearer` is case-insensitive (RFC 7235 §2.1).
function bearerToken(value) {
  const m = /^([A-Za-z]+) +(.*)$/.exec(value);
  return m && m[1].toLowerCase() === 'bearer' ? m[2] : null;
}

/// A whole HTTP/1.1 answer for a socket the http module does not answer on (a refused connection,
/// a request the parser rejected); the connection is closed after it.
function rawAnswer(status, code, message) {
  const body = canonical(errorBody(code, message));
  return `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
         `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`;
}

/// --fault KIND[:AFTER[:TIMES]] as typestar::parse_fault. Throws an Error naming the problem.
function parseFault(text) {
  const parts = text.split(':');
  if (parts.length > 3) throw new Error(`fault '${text}': expected KIND[:AFTER[:TIMES]]`);
  const kinds = ['none', 'crash', 'hang', 'drop', 'garbage'];
  if (!kinds.includes(parts[0]))
    throw new Error(`fault '${text}': unknown kind '${parts[0]}' (none, crash, hang, drop, garbage)`);
  const number = (s, what) => {
    if (!/^[0-9]{1,15}$/.test(s)) throw new Error(`fault '${text}': ${what} '${s}' is not a number`);
    return Number(s);
  };
  return {
    kind: parts[0],
    after: parts.length > 1 ? number(parts[1], 'AFTER') : 0,
    times: parts.length > 2 ? number(parts[2], 'TIMES') : Number.MAX_SAFE_INTEGER,
    hangMs: 3000,
  };
}

/// The /v1/status body of `device` (a NodeDevice or a DataDevice): what the agent serves, and what the node:test
/// runner hands `typestar suite --device-status` to have the spec compared with its purpose.
function statusOf(device, maxSessions) {
  if (device.data) {
    // A data device (device/PROTOCOL.md, "Data devices"): the typed signature in `data`, no callbacks,
    // no wait, timing 0/0.
    return {
      protocol: PROTOCOL, agent: 'typestar-node-device', name: device.name, framework: device.def.framework,
      callins: device.inputs, callbacks: [], timing: { tmax_ms: 0, tmin_ms: 0 }, quiet_is_stable: true,
      max_sessions: maxSessions, data: device.def.signature(),
    };
  }
  const body = {
    protocol: PROTOCOL,
    agent: 'typestar-node-device',
    name: device.name,
    framework: device.def.framework,
    callins: device.inputs.filter((n) => n !== 'wait'),
    callbacks: device.def.callbacks.map((c) => c.name),
    timing: { tmax_ms: device.timing.tmaxMs, tmin_ms: device.timing.tminMs },
    quiet_is_stable: device.quietIsStable,
    max_sessions: maxSessions,
  };
  // Additive field (device/PROTOCOL.md): absent when no callin has the environment role.
  if (device.environment.length > 0) body.environment = device.environment;
  // Additive field: the learning purpose may deny callins (answered err, marked outside_purpose).
  if (device.outputs.includes(OUTSIDE_PURPOSE)) body.outside_purpose = true;
  // Additive fields (device/PROTOCOL.md, "Mealy devices"): named callin outputs, no wait, err not absorbing.
  if (device.mealy) {
    body.outputs = [...device.namedOutputs];
    if (!device.mealy.wait) body.wait = false;
    if (!device.mealy.errAbsorbing) body.absorbing = [];
  }
  // Additive field: /v1/run takes `timeout_ms` (every wait of the run waits that long).
  if (!device.mealy || device.mealy.wait) body.run_timeout = true;
  return body;
}

class Agent {
  /// `makeDevice()` returns a fresh NodeDevice; config: {token (required), host ('127.0.0.1'),
  /// port (0: any), maxSessions (64), idleTimeoutMs (60000), maxBodyBytes (1 MiB), maxHeaderBytes
  /// (16 KiB), maxJsonDepth (MAX_JSON_DEPTH), maxConnections (256), connectionTimeoutMs (30000),
  /// fault ({kind:'none'}), onCrash (called for a `crash` fault)}.
  constructor(makeDevice, config) {
    if (typeof makeDevice !== 'function') throw new Error('the agent needs a device factory');
    if (!config || !config.token) throw new Error('the agent needs a bearer token');
    this.makeDevice = makeDevice;
    this.config = {
      host: '127.0.0.1', port: 0, maxSessions: 64, idleTimeoutMs: 60000, maxBodyBytes: 1024 * 1024,
      maxHeaderBytes: 16 * 1024, maxJsonDepth: MAX_JSON_DEPTH, maxConnections: 256, connectionTimeoutMs: 30000,
      fault: { kind: 'none', after: 0, times: 0, hangMs: 3000 }, onCrash: null, ...config,
    };
    this.connections = new Set();
    this.slots = [];
    this.sessions = new Map();
    this.createdByRequest = new Map();
    this.faultCounter = 0;
    this.injected = 0;
    this.crashed = false;
    this.server = null;
    this.reaper = null;
  }

  /// Binds and listens; resolves with the port. Rejects when the address cannot be bound.
  async start() {
    const first = this.makeDevice();
    this.slots.push({ device: first, busy: false });
    this.statusBody = statusOf(first, this.config.maxSessions);
    // Bounded resources (device/PROTOCOL.md, limits): a request must be complete within the
    // connection timeout (headers and body), an idle keep-alive connection is closed after it, and
    // at most maxConnections are open (one more is answered 503 and closed, nothing else is done).
    const timeout = this.config.connectionTimeoutMs;
    this.server = http.createServer({
      maxHeaderSize: this.config.maxHeaderBytes, requestTimeout: timeout, headersTimeout: timeout,
      keepAliveTimeout: timeout, connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(timeout / 4))),
    }, (req, res) => this.receive(req, res));
    this.server.keepAliveTimeout = timeout;
    this.server.on('connection', (socket) => {
      if (this.connections.size >= this.config.maxConnections) {
        socket.refused = true;
        socket.end(rawAnswer(503, 'too many connections',
                             `${this.config.maxConnections} connections are open (--max-connections)`));
        socket.destroySoon();
        return;
      }
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
    this.server.on('clientError', (err, socket) => {
      // A request not complete within the connection timeout (or none started): closed, no answer.
      if (!socket.writable || socket.refused || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return socket.destroy();
      const [status, message] =
        err.code === 'HPE_HEADER_OVERFLOW' ? [431, `request headers exceed ${this.config.maxHeaderBytes} bytes`]
        : err.code === 'HPE_INVALID_VERSION' ? [505, 'only HTTP/1.0 and HTTP/1.1 are served']
        : [400, 'malformed request'];
      socket.end(rawAnswer(status, 'invalid argument', message));
      socket.destroySoon();
    });
    await new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.port, this.config.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const period = Math.max(10, Math.floor(this.config.idleTimeoutMs / 4));
    this.reaper = setInterval(() => this.reap(), period);
    this.reaper.unref();
    return this.port;
  }

  get port() {
    return this.server ? this.server.address().port : 0;
  }

  get url() {
    const host = this.config.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${this.port}`;
  }

  /// Stops listening, ends every session. Resolves when done.
  async stop() {
    if (this.reaper) clearInterval(this.reaper);
    if (this.server) {
      this.server.close();
      if (this.server.closeAllConnections) this.server.closeAllConnections();
    }
    const left = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of left) await this.serialized(s, () => this.endSession(s));
  }

  /// Records a harness error on every live device (an exception thrown outside any callin, e.g.
  /// from an event listener scheduled by the library): each answers `device error` next.
  harnessError(message) {
    for (const slot of this.slots) if (slot.busy) slot.device.monitor.record(message, 'harnessErrors');
  }

  // ---- transport ----

  receive(req, res) {
    if (req.socket.refused) return req.socket.destroy();
    const send = (r, keepAlive = true) => {
      if (r.fault === 'drop') return req.socket.destroy();
      if (r.fault === 'garbage') {
        return req.socket.end(Buffer.concat([
          Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n'),
          Buffer.from([0x01, 0x02]), Buffer.from('garbage{]'), Buffer.from([0xff, 0xfe])]));
      }
      const wantsClose = !keepAlive || req.httpVersion === '1.0' || (req.headers.connection || '').toLowerCase() === 'close';
      res.writeHead(r.status, {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(r.body),
        'Cache-Control': 'no-store',
        ...r.headers,
        Connection: wantsClose ? 'close' : 'keep-alive',
      });
      res.end(r.body);
      // A client that does not read its answer holds the connection at most the connection timeout.
      const reader = setTimeout(() => req.socket.destroy(), this.config.connectionTimeoutMs);
      reader.unref();
      res.once('finish', () => {
        clearTimeout(reader);
        // Refused before its body was read: close, never read (or wait for) the rest.
        if (wantsClose) req.socket.destroySoon();
      });
      res.once('close', () => clearTimeout(reader));
    };
    // Everything the headers decide is decided before a byte of the body is read: the version, a
    // repeated header, an Origin, the token, the framing and the size.
    const refusal = this.refuse(req);
    if (refusal) return send(refusal, false);
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= this.config.maxBodyBytes) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > this.config.maxBodyBytes) {
        return send(error(413, 'invalid argument', `request body exceeds ${this.config.maxBodyBytes} bytes`), false);
      }
      const path = req.url.split('?')[0];
      this.handle(req.method, path, Buffer.concat(chunks).toString('utf8'))
        .then(send, (e) => {
          process.stderr.write(`typestar-node-device: internal failure: ${e && e.stack ? e.stack : e}\n`);
          send(error(500, 'unknown error', 'the agent failed internally while handling the request'), false);
        });
    });
  }

  /// The answer to a request its headers alone refuse, in the order of device/PROTOCOL.md (limits):
  /// version, repeated headers, framing, size, Origin, token; or null. Every refusal closes the
  /// connection without reading the body.
  refuse(req) {
    const refuse = (status, code, message) => error(status, code, message);
    if (req.httpVersion !== '1.1' && req.httpVersion !== '1.0')
      return refuse(505, 'invalid argument', `HTTP/${echo(req.httpVersion)}: only HTTP/1.0 and HTTP/1.1 are served`);
    const repeated = repeatedHeader(req.rawHeaders);
    if (repeated) return refuse(400, 'invalid argument', `the header '${echo(repeated)}' appears more than once`);
    if (req.headers['transfer-encoding'] !== undefined)
      return refuse(411, 'invalid argument', 'chunked bodies are not supported; send Content-Length');
    const lengthText = req.headers['content-length'];
    if (lengthText !== undefined && !/^[0-9]{1,15}$/.test(lengthText))
      return refuse(400, 'invalid argument', 'Content-Length is not a number');
    if (Number(lengthText ?? 0) > this.config.maxBodyBytes)
      return refuse(413, 'invalid argument', `request body exceeds ${this.config.maxBodyBytes} bytes`);
    if (req.headers.origin !== undefined)
      return refuse(403, 'forbidden', 'requests with an Origin header are refused (no browser access)');
    const auth = req.headers.authorization ?? '';
    const token = bearerToken(auth);
    if (token === null || !equalConstantTime(token, this.config.token))
      return refuse(401, 'unauthorized', auth === '' ? 'missing bearer token' : 'wrong bearer token');
    return null;
  }

  // ---- protocol ----

  /// An authorised request (receive() checked its headers).
  async handle(method, target, body) {
    if (this.crashed) return { fault: 'drop' };
    const fault = this.config.fault;
    let inject = false;
    if (target !== '/v1/status' && fault.kind !== 'none') {
      const n = this.faultCounter++;
      inject = n >= fault.after && n - fault.after < fault.times;
    }
    if (inject) {
      ++this.injected;
      if (fault.kind === 'crash') {
        this.crashed = true;
        if (this.config.onCrash) this.config.onCrash();
        return { fault: 'drop' };
      }
      if (fault.kind === 'hang') await new Promise((r) => setTimeout(r, fault.hangMs));
    }
    const r = { ...(await this.route(method, target, body)) };  // a copy: a stored answer stays clean
    if (inject && fault.kind === 'drop') r.fault = 'drop';
    if (inject && fault.kind === 'garbage') r.fault = 'garbage';
    return r;
  }

  async route(method, t, text) {
    if (t === '/v1/status') {
      if (method !== 'GET') return error(405, 'unknown method', `${method} ${echo(t)}`);
      return reply(200, { ...this.statusBody, sessions: this.sessions.size });
    }
    let body = {};
    if (method === 'POST') {
      if (jsonDeeperThan(text, this.config.maxJsonDepth))
        return error(400, 'invalid argument', `the request body nests JSON deeper than ${this.config.maxJsonDepth} levels`);
      try {
        body = JSON.parse(text === '' ? '{}' : text);
      } catch (e) {
        body = null;
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        return error(400, 'invalid argument', 'the request body is not a JSON object');
    }
    if (t === '/v1/run') {
      if (method !== 'POST') return error(405, 'unknown method', `${method} ${echo(t)}`);
      return this.run(body);
    }
    if (t === '/v1/sessions') {
      if (method !== 'POST') return error(405, 'unknown method', `${method} ${echo(t)}`);
      return this.create(body);
    }
    const prefix = '/v1/sessions/';
    if (t.startsWith(prefix)) {
      let rest = t.slice(prefix.length);
      let action = '';
      const slash = rest.indexOf('/');
      if (slash >= 0) {
        action = rest.slice(slash + 1);
        rest = rest.slice(0, slash);
      }
      const s = this.sessions.get(rest);
      if (!s) return error(404, 'invalid session id', `no session '${echo(rest)}' (ended or reaped)`);
      if (action === '') {
        if (method !== 'DELETE') return error(405, 'unknown method', `${method} ${echo(t)}`);
        return this.remove(s);
      }
      if (method !== 'POST') return error(405, 'unknown method', `${method} ${echo(t)}`);
      if (action === 'callin' || action === 'wait') return this.serialized(s, () => this.step(s, action === 'wait', body));
    }
    return error(404, 'unknown command', `${method} ${echo(t)}`);
  }

  takeSlot() {
    const free = this.slots.find((s) => !s.busy);
    if (free) {
      free.busy = true;
      return free;
    }
    if (this.slots.length >= this.config.maxSessions) return null;
    const slot = { device: this.makeDevice(), busy: true };
    this.slots.push(slot);
    return slot;
  }

  async releaseSlot(slot) {
    await slot.device.finish();
    slot.busy = false;
  }

  /// Runs `f` after every earlier request of session `s` (one request at a time per session).
  serialized(s, f) {
    const result = s.chain.then(() => {
      s.busy = true;
      return f();
    }).finally(() => {
      s.busy = false;
      s.lastUsed = Date.now();
    });
    s.chain = result.catch(() => {});
    return result;
  }

  async endSession(s) {
    if (s.ended) return;
    s.ended = true;
    await this.releaseSlot(s.slot);
  }

  reap() {
    const now = Date.now();
    for (const [id, s] of this.sessions) {
      if (!s.busy && now - s.lastUsed > this.config.idleTimeoutMs) {
        this.sessions.delete(id);
        this.serialized(s, () => this.endSession(s));
      }
    }
  }

  async create(body) {
    let requestId = '';
    if (body.request_id !== undefined) {
      if (typeof body.request_id !== 'string') return error(400, 'invalid argument', 'request_id must be a string');
      if (Buffer.byteLength(body.request_id) > 256)
        return error(400, 'invalid argument', 'request_id must be at most 256 bytes');
      requestId = body.request_id;
      const known = this.createdByRequest.get(requestId);
      if (known !== undefined && this.sessions.has(known)) return reply(201, { session: known, seq: 0 });
    }
    const slot = this.takeSlot();
    if (!slot) return error(503, 'session not created', `all ${this.config.maxSessions} instances are in use`);
    try {
      await slot.device.reset();
    } catch (e) {
      await this.releaseSlot(slot);
      if (e instanceof DeviceError && e.timing) return deviceFailure(e, slot.device.name);  // an earlier query's
      return error(500, 'session not created', e.message);
    }
    const s = {
      id: crypto.randomBytes(16).toString('hex'), slot, nextSeq: 0, last: null, lastUsed: Date.now(),
      ended: false, busy: false, chain: Promise.resolve(),
    };
    this.sessions.set(s.id, s);
    if (requestId !== '') {
      if (this.createdByRequest.size > 4096) this.createdByRequest.clear();
      this.createdByRequest.set(requestId, s.id);
    }
    return reply(201, { session: s.id, seq: 0 });
  }

  remove(s) {
    this.sessions.delete(s.id);
    return this.serialized(s, async () => {
      await this.endSession(s);
      return reply(200, { session: s.id, deleted: true });
    });
  }

  async step(s, isWait, body) {
    if (s.ended) return error(404, 'invalid session id', `session '${s.id}' has ended`);
    if (!isUnsignedInteger(body.seq)) return error(400, 'invalid argument', 'seq (a non-negative integer) is required');
    const seq = body.seq;
    if (s.last && seq + 1 === s.nextSeq) return s.last;  // a retry: answer it again, do not run it
    if (seq !== s.nextSeq) return error(409, 'sequence mismatch', `expected seq ${s.nextSeq}, got ${seq}`);
    const d = s.slot.device;
    if (d.data) return this.dataStep(s, seq, isWait, body);
    let input;
    let timeout;
    if (isWait) {
      input = 'wait';
      timeout = d.timing.tmaxMs;
      if (body.timeout_ms !== undefined) {
        if (!isUnsignedInteger(body.timeout_ms) || body.timeout_ms > 3600000)
          return error(400, 'invalid argument', 'timeout_ms must be an integer in [0, 3600000]');
        timeout = body.timeout_ms;
      }
    } else {
      if (typeof body.callin !== 'string') return error(400, 'invalid argument', 'callin (a string) is required');
      input = body.callin;
      if (input === 'wait' || !d.inputs.includes(input)) return error(400, 'invalid argument', `unknown callin '${echo(input)}'`);
    }
    try {
      const output = await d.step(input, timeout);
      // PROTOCOL.md: a callin the purpose denies is err, marked outside_purpose.
      s.last = reply(200, output === OUTSIDE_PURPOSE ? { seq, output: 'err', outside_purpose: true } : { seq, output });
    } catch (e) {
      s.last = deviceFailure(e, d.name);
    }
    ++s.nextSeq;
    return s.last;
  }

  /// A data input's values (`values` of a callin, absent: none): exactly as many integers as
  /// `callin` takes. Returns them, or {error} with the 400 answer.
  static dataValues(d, callin, values) {
    const arity = d.arity(callin);
    const given = values === undefined ? [] : values;
    if (!Array.isArray(given)) return { error: error(400, 'invalid argument', `values of '${echo(callin)}' must be an array of integers`) };
    if (given.length !== arity) {
      return { error: error(400, 'invalid argument', `callin '${echo(callin)}' takes ${arity} value${arity === 1 ? '' : 's'}, ` +
                                                     `got ${given.length}`) };
    }
    if (!given.every(isValue)) {
      return { error: error(400, 'invalid argument', `a value of '${echo(callin)}' is not an integer within ±(2^53 - 1) ` +
                                                     '(the integers a JavaScript number holds exactly)') };
    }
    return { values: given };
  }

  /// A data device's step (device/PROTOCOL.md, "Data devices"): {seq, output, values}.
  async dataStep(s, seq, isWait, body) {
    const d = s.slot.device;
    if (isWait) return error(400, 'invalid argument', 'a data device has no wait (every callin answers its output)');
    if (typeof body.callin !== 'string') return error(400, 'invalid argument', 'callin (a string) is required');
    if (d.arity(body.callin) < 0) return error(400, 'invalid argument', `unknown callin '${echo(body.callin)}'`);
    const v = Agent.dataValues(d, body.callin, body.values);
    if (v.error) return v.error;
    try {
      const a = await d.step(body.callin, v.values);
      s.last = reply(200, { seq, output: a.output, values: a.values });
    } catch (e) {
      s.last = deviceFailure(e, d.name);
    }
    ++s.nextSeq;
    return s.last;
  }

  /// A data device's /v1/run: every input (a callin name, or {callin, values}) from a fresh instance.
  async dataRun(slot, inputs) {
    const d = slot.device;
    const word = [];
    for (const i of inputs) {
      const callin = typeof i === 'string' ? i : i !== null && typeof i === 'object' && !Array.isArray(i) ? i.callin : undefined;
      if (typeof callin !== 'string' || d.arity(callin) < 0) {
        await this.releaseSlot(slot);
        return error(400, 'invalid argument', typeof callin === 'string' ? `unknown callin '${echo(callin)}'`
          : `an input is a ${kindOf(i)}, not a callin name or {callin, values}`);
      }
      const v = Agent.dataValues(d, callin, typeof i === 'string' ? undefined : i.values);
      if (v.error) {
        await this.releaseSlot(slot);
        return v.error;
      }
      word.push({ callin, values: v.values });
    }
    try {
      const r = await d.run(word);
      await this.releaseSlot(slot);
      return reply(200, r);
    } catch (e) {
      await this.releaseSlot(slot);
      return deviceFailure(e, d.name);
    }
  }

  async run(body) {
    if (!Array.isArray(body.inputs)) return error(400, 'invalid argument', 'inputs (an array of input names) is required');
    const slot = this.takeSlot();
    if (!slot) return error(503, 'session not created', `all ${this.config.maxSessions} instances are in use`);
    const d = slot.device;
    if (d.data) return this.dataRun(slot, body.inputs);
    const timeout = body.timeout_ms;
    if (timeout !== undefined && (!isUnsignedInteger(timeout) || timeout > 3600000 || timeout < d.timing.tminMs)) {
      await this.releaseSlot(slot);
      return error(400, 'invalid argument', `timeout_ms must be an integer in [${d.timing.tminMs} (tmin), 3600000]`);
    }
    for (const name of body.inputs) {
      if (typeof name !== 'string' || !d.inputs.includes(name)) {
        await this.releaseSlot(slot);
        return error(400, 'invalid argument', typeof name === 'string'
          ? `unknown input ${JSON.stringify(cut(name)).replace(/\u007f/g, '\\u007f')}` : `an input is a ${kindOf(name)}, not an input name`);
      }
    }
    try {
      const r = await d.run(body.inputs, timeout);
      await this.releaseSlot(slot);
      const outside = r.outputs.indexOf(OUTSIDE_PURPOSE);  // PROTOCOL.md: err, its index marked
      const answer = { outputs: r.outputs.map((o) => (o === OUTSIDE_PURPOSE ? 'err' : o)), steps: r.steps, waits: r.waits };
      if (outside >= 0) answer.outside_purpose = outside;
      return reply(200, answer);
    } catch (e) {
      await this.releaseSlot(slot);
      return deviceFailure(e, d.name);
    }
  }
}

module.exports = { Agent, statusOf, parseFault, canonical, jsonDeeperThan, bearerToken, PROTOCOL, MAX_JSON_DEPTH };
