package typestar.agent;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

/**
 * The JVM device agent: serves a {@link LearningPurpose} over the HTTP device protocol /v1
 * (device/PROTOCOL.md), exactly like the C++ typestar-device, or a {@link DataPurpose} with the
 * data fields of /v1 (a data device: values on callins and outputs, no callbacks, no wait). Every session owns one runner slot (a
 * fresh instance) for its lifetime, so a pool of clients never shares an instance. Steps carry
 * sequence numbers: a retried step is answered from the session's last response and never runs
 * twice. Every request needs the bearer token; requests with an Origin header are refused; header
 * and body sizes are bounded. HTTP: the JDK's com.sun.net.httpserver; JSON: Gson.
 */
public final class Agent {
    private static final Logger LOG = Logger.getLogger("typestar.device");
    static final String PROTOCOL = "typestar-device/1";

    /** Agent options (plain data with defaults). */
    public static final class Config {
        public String host = "127.0.0.1";
        public int port = 0;
        public String token = "";
        public int maxHeaderBytes = 16 * 1024;
        public long maxBodyBytes = 1024 * 1024;
        public long idleTimeoutMs = 60_000;
        public int maxSessions = 64;
        public String fault = "none";
        public long faultAfter = 0;
        public long faultTimes = Long.MAX_VALUE;
        public long hangMs = 3000;
        /** Connections served at once; one more is answered 503 and closed (device/PROTOCOL.md). */
        public int maxConnections = 256;
        /** A connection idle, or slow to send a request or take its answer, this long is closed. */
        public long connectionTimeoutMs = 30_000;
    }

    private record Response(int status, String body, boolean unauthorized, String fault) {
        static Response json(int status, JsonElement body) {
            return new Response(status, Json.dump(body), false, null);
        }

        Response withFault(String f) {
            return new Response(status, body, unauthorized, f);
        }

        HttpServer.Reply reply() {
            return new HttpServer.Reply(status, body, unauthorized, fault);
        }
    }

    private static final class Slot {
        final Runner runner;                 // a typestate device's; null for a data device
        final DataPurpose<?>.Instance data;  // a data device's; null for a typestate device
        boolean busy;

        Slot(Runner runner, DataPurpose<?>.Instance data) {
            this.runner = runner;
            this.data = data;
        }

        void reset() throws DeviceException {
            if (runner != null) runner.reset();
            else data.reset();
        }

        void finish() {
            if (runner != null) runner.finish();
            else data.finish();
        }
    }

    private static final class Session {
        final String id;
        final Slot slot;
        final ReentrantLock lock = new ReentrantLock();  // one request at a time
        long nextSeq = 0;                                // the seq the next new step must carry
        Response last;                                   // answer to step nextSeq - 1 (for retries)
        volatile long lastUsed = System.nanoTime();
        boolean ended;

        Session(String id, Slot slot) {
            this.id = id;
            this.slot = slot;
        }
    }

    private final LearningPurpose<?> purpose;  // null for a data device
    private final DataPurpose<?> dataPurpose;  // null for a typestate device
    private final Config config;
    private final Object mutex = new Object();
    private final List<Slot> slots = new ArrayList<>();
    private final Map<String, Session> sessions = new HashMap<>();
    private final Map<String, String> createdByRequest = new LinkedHashMap<>();
    private final SecureRandom random = new SecureRandom();
    private final AtomicLong faultCounter = new AtomicLong();
    private final AtomicLong injected = new AtomicLong();
    private final AtomicBoolean crashed = new AtomicBoolean();
    private final byte[] expectedToken;
    private JsonObject statusBody;
    private HttpServer server;
    private ScheduledExecutorService reaper;
    /** What a crash fault does (the command line: exit with status 70). */
    Runnable onCrash = () -> Runtime.getRuntime().halt(70);

    /** Throws IllegalArgumentException for an invalid purpose or an empty token. */
    public Agent(LearningPurpose<?> purpose, Config config) {
        purpose.validate();
        if (config.token == null || config.token.isEmpty()) throw new IllegalArgumentException("the agent needs a bearer token");
        this.purpose = purpose;
        this.dataPurpose = null;
        this.config = config;
        this.expectedToken = config.token.getBytes(StandardCharsets.UTF_8);
    }

    /** A data device (device/PROTOCOL.md, "Data devices"). Throws IllegalArgumentException for an invalid purpose or an empty token. */
    public Agent(DataPurpose<?> purpose, Config config) {
        purpose.validate();
        if (config.token == null || config.token.isEmpty()) throw new IllegalArgumentException("the agent needs a bearer token");
        this.purpose = null;
        this.dataPurpose = purpose;
        this.config = config;
        this.expectedToken = config.token.getBytes(StandardCharsets.UTF_8);
    }

    /** Binds and starts serving. Throws IOException when the address cannot be bound. */
    public void start() throws IOException {
        statusBody = dataPurpose != null ? Status.dataStatus(dataPurpose, config.maxSessions)
                                         : Status.typestateStatus(purpose, config.maxSessions);
        HttpServer.Limits limits = new HttpServer.Limits();
        limits.maxHeaderBytes = config.maxHeaderBytes;
        limits.maxBodyBytes = config.maxBodyBytes;
        limits.maxConnections = config.maxConnections;
        limits.connectionTimeoutMs = config.connectionTimeoutMs;
        server = new HttpServer(limits, new HttpServer.Handler() {
            @Override
            public HttpServer.Reply admit(HttpServer.Request request) {
                Response r = Agent.this.admit(request);
                return r == null ? null : r.reply();
            }

            @Override
            public HttpServer.Reply handle(HttpServer.Request request, byte[] body) {
                return Agent.this.handle(request.method(), request.target(), new String(body, StandardCharsets.UTF_8)).reply();
            }
        });
        server.start(config.host, config.port);
        reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "typestar-reaper");
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(10, config.idleTimeoutMs / 4);
        reaper.scheduleWithFixedDelay(this::reap, period, period, TimeUnit.MILLISECONDS);
    }

    /**
     * The {@code /v1/status} body an agent serves for the data device {@code purpose}, as JSON text:
     * what a runner hands {@code typestar suite --device-status} to have a register-automaton spec
     * compared with its purpose (class and typed signature).
     */
    public static String statusOf(DataPurpose<?> purpose) {
        return Json.dump(Status.dataStatus(purpose, 1));
    }

    /**
     * The {@code /v1/status} body an agent serves for {@code purpose}, as JSON text: what a runner
     * hands {@code typestar suite --device-status} to have the spec compared with its purpose (the
     * session's {@code device_mismatch}).
     */
    public static String statusOf(LearningPurpose<?> purpose) {
        return Json.dump(Status.typestateStatus(purpose, 1));
    }

    /** Stops serving and ends every session. Idempotent. */
    public void stop() {
        if (server != null) server.stop();
        if (reaper != null) reaper.shutdownNow();
        List<Session> left;
        synchronized (mutex) {
            left = new ArrayList<>(sessions.values());
            sessions.clear();
        }
        for (Session s : left) {
            s.lock.lock();
            try {
                endSession(s);
            } finally {
                s.lock.unlock();
            }
        }
        server = null;
    }

    /** The bound port (after start). */
    public int port() {
        return server == null ? 0 : server.port();
    }

    /** "http://HOST:PORT". */
    public String url() {
        String h = config.host;
        return "http://" + (h.contains(":") ? "[" + h + "]" : h) + ":" + port();
    }

    // ---- transport ----

    // ---- protocol ----

    /** Connections open now. */
    int connections() {
        return server == null ? 0 : server.connections();
    }

    /** The credentials of {@code Authorization: <scheme> <credentials>} when the scheme is Bearer (any case); else null. */
    static String bearerCredentials(String value) {
        if (value.length() < 7 || value.charAt(6) != ' ' || !value.regionMatches(true, 0, "bearer", 0, 6)) return null;
        int i = 6;
        while (i < value.length() && value.charAt(i) == ' ') ++i;
        return value.substring(i);
    }

    /** Origin and the bearer token, checked on the headers alone (before the body is read); null: admitted. */
    private Response admit(HttpServer.Request request) {
        if (request.header("origin") != null)  // even an empty one: only browsers send it
            return Response.json(403, Json.error("forbidden", "requests with an Origin header are refused (no browser access)"));
        String auth = request.header("authorization");
        String why = null;
        if (auth == null || auth.isEmpty()) {
            why = "missing bearer token";
        } else {
            String credentials = bearerCredentials(auth);
            if (credentials == null) why = "not a bearer token (expected `Authorization: Bearer <token>`)";
            else if (!equalConstantTime(credentials.getBytes(StandardCharsets.UTF_8), expectedToken)) why = "wrong bearer token";
        }
        if (why == null) return null;
        Response r = Response.json(401, Json.error("unauthorized", why));
        return new Response(r.status, r.body, true, null);
    }

    private static boolean equalConstantTime(byte[] a, byte[] b) {
        int diff = a.length == b.length ? 0 : 1;
        for (int i = 0; i < Math.max(a.length, b.length); ++i)
            diff |= (i < a.length ? a[i] : 0) ^ (i < b.length ? b[i] : 0);
        return diff == 0;
    }

    private Response handle(String method, String target, String body) {
        if (crashed.get()) return new Response(0, "", false, "drop");
        boolean isStatus = target.equals("/v1/status");
        boolean inject = false;
        if (!isStatus && !config.fault.equals("none")) {
            long n = faultCounter.getAndIncrement();
            inject = n >= config.faultAfter && n - config.faultAfter < config.faultTimes;
        }
        if (inject) {
            injected.incrementAndGet();
            if (config.fault.equals("crash")) {
                crashed.set(true);
                onCrash.run();
                return new Response(0, "", false, "drop");
            }
            if (config.fault.equals("hang")) {
                try {
                    Thread.sleep(config.hangMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        Response r = route(method, target, body);
        if (inject && (config.fault.equals("drop") || config.fault.equals("garbage"))) r = r.withFault(config.fault);
        return r;
    }

    private Response route(String method, String t, String text) {
        if (t.equals("/v1/status")) {
            if (!method.equals("GET")) return Response.json(405, Json.error("unknown method", method + " " + t));
            JsonObject b = statusBody.deepCopy();
            b.addProperty("sessions", sessionsAlive());
            return Response.json(200, b);
        }
        JsonObject body = new JsonObject();
        if (method.equals("POST")) {
            if (Json.tooDeep(text))
                return Response.json(400, Json.error("invalid argument", "the request body nests JSON deeper than " + Json.MAX_DEPTH + " levels"));
            JsonElement e = Json.parse(text.isEmpty() ? "{}" : text);
            if (e == null || !e.isJsonObject())
                return Response.json(400, Json.error("invalid argument", "the request body is not a JSON object"));
            body = e.getAsJsonObject();
        }
        if (t.equals("/v1/run")) {
            if (!method.equals("POST")) return Response.json(405, Json.error("unknown method", method + " " + t));
            return run(body);
        }
        if (t.equals("/v1/sessions")) {
            if (!method.equals("POST")) return Response.json(405, Json.error("unknown method", method + " " + t));
            return create(body);
        }
        String prefix = "/v1/sessions/";
        if (t.startsWith(prefix)) {
            String rest = t.substring(prefix.length());
            String action = "";
            int slash = rest.indexOf('/');
            if (slash >= 0) {
                action = rest.substring(slash + 1);
                rest = rest.substring(0, slash);
            }
            Session s;
            synchronized (mutex) {
                s = sessions.get(rest);
            }
            if (s == null) return Response.json(404, Json.error("invalid session id", "no session '" + Json.excerpt(rest) + "' (ended or reaped)"));
            if (action.isEmpty()) {
                if (!method.equals("DELETE")) return Response.json(405, Json.error("unknown method", method + " " + t));
                return remove(s);
            }
            if (!method.equals("POST")) return Response.json(405, Json.error("unknown method", method + " " + t));
            if (action.equals("callin") || action.equals("wait")) return step(s, action.equals("wait"), body);
        }
        return Response.json(404, Json.error("unknown command", method + " " + t));
    }

    private int sessionsAlive() {
        synchronized (mutex) {
            return sessions.size();
        }
    }

    private Slot takeSlot() {
        synchronized (mutex) {
            for (Slot s : slots)
                if (!s.busy) {
                    s.busy = true;
                    return s;
                }
            if (slots.size() >= config.maxSessions) return null;
            Slot s = purpose != null ? new Slot(new Runner(purpose), null) : new Slot(null, dataPurpose.new Instance());
            s.busy = true;
            slots.add(s);
            return s;
        }
    }

    private void releaseSlot(Slot s) {
        s.finish();
        synchronized (mutex) {
            s.busy = false;
        }
    }

    private String newId() {
        byte[] b = new byte[16];
        synchronized (random) {
            random.nextBytes(b);
        }
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x));
        return sb.toString();
    }

    private void endSession(Session s) {
        if (s.ended) return;
        s.ended = true;
        releaseSlot(s.slot);
    }

    private void reap() {
        List<Session> idle = new ArrayList<>();
        long now = System.nanoTime();
        synchronized (mutex) {
            var it = sessions.values().iterator();
            while (it.hasNext()) {
                Session s = it.next();
                if (now - s.lastUsed > config.idleTimeoutMs * 1_000_000L && s.lock.tryLock()) {
                    try {
                        idle.add(s);
                        it.remove();
                    } finally {
                        s.lock.unlock();
                    }
                }
            }
        }
        for (Session s : idle) {
            s.lock.lock();
            try {
                LOG.info("reaping idle session " + s.id);
                endSession(s);
            } finally {
                s.lock.unlock();
            }
        }
    }

    /**
     * A device's failure as the protocol's error: a timing violation with its data (PROTOCOL.md: the
     * client re-runs the word, or names the callback when it repeats), anything else {@code device error}.
     */
    private static Response failure(DeviceException e) {
        JsonObject body = Json.error(e.timing() != null ? "timing violation" : "device error", e.getMessage());
        if (e.timing() != null) body.getAsJsonObject("value").add("timing", e.timing());
        return Response.json(500, body);
    }

    private Response busy() {
        return Response.json(503, Json.error("session not created", "all " + config.maxSessions + " instances are in use"));
    }

    private Response create(JsonObject body) {
        String requestId = null;
        if (body.has("request_id")) {
            requestId = Json.string(body.get("request_id"));
            if (requestId == null) return Response.json(400, Json.error("invalid argument", "request_id must be a string"));
            synchronized (mutex) {
                String id = createdByRequest.get(requestId);
                if (id != null && sessions.containsKey(id)) return created(id);  // a retried create
            }
        }
        Slot slot = takeSlot();
        if (slot == null) return busy();
        try {
            slot.reset();
        } catch (DeviceException e) {
            releaseSlot(slot);
            if (e.timing() != null) return failure(e);  // a violation of an earlier query, found now
            return Response.json(500, Json.error("session not created", e.getMessage()));
        }
        Session s = new Session(newId(), slot);
        synchronized (mutex) {
            sessions.put(s.id, s);
            if (requestId != null && !requestId.isEmpty()) {
                if (createdByRequest.size() > 4096) createdByRequest.clear();
                createdByRequest.put(requestId, s.id);
            }
        }
        return created(s.id);
    }

    private static Response created(String id) {
        JsonObject o = new JsonObject();
        o.addProperty("session", id);
        o.addProperty("seq", 0);
        return Response.json(201, o);
    }

    private Response remove(Session s) {
        s.lock.lock();
        try {
            synchronized (mutex) {
                sessions.remove(s.id);
            }
            endSession(s);
        } finally {
            s.lock.unlock();
        }
        JsonObject o = new JsonObject();
        o.addProperty("session", s.id);
        o.addProperty("deleted", true);
        return Response.json(200, o);
    }

    private Response step(Session s, boolean isWait, JsonObject body) {
        s.lock.lock();
        try {
            s.lastUsed = System.nanoTime();
            if (s.ended) return Response.json(404, Json.error("invalid session id", "session '" + s.id + "' has ended"));
            long seq = Json.unsigned(body.get("seq"));
            if (seq < 0) return Response.json(400, Json.error("invalid argument", "seq (a non-negative integer) is required"));
            if (s.last != null && seq + 1 == s.nextSeq) return s.last;  // a retry: answer it again
            if (seq != s.nextSeq)
                return Response.json(409, Json.error("sequence mismatch", "expected seq " + s.nextSeq + ", got " + seq));
            if (dataPurpose != null) return dataStep(s, seq, isWait, body);
            Runner d = s.slot.runner;
            Runner.Answer answer;
            try {
                if (isWait && !d.hasWait())
                    return Response.json(400, Json.error("invalid argument", "the device has no wait input"));
                if (isWait) {
                    long timeout = d.tmaxMs();
                    if (body.has("timeout_ms")) {
                        timeout = Json.unsigned(body.get("timeout_ms"));
                        if (timeout < 0 || timeout > 3_600_000)
                            return Response.json(400, Json.error("invalid argument", "timeout_ms must be an integer in [0, 3600000]"));
                    }
                    answer = d.step("wait", true, timeout);
                } else {
                    String name = Json.string(body.get("callin"));
                    if (name == null) return Response.json(400, Json.error("invalid argument", "callin (a string) is required"));
                    if (!d.isCallin(name)) return Response.json(400, Json.error("invalid argument", "unknown callin '" + Json.excerpt(name) + "'"));
                    answer = d.step(name, false, 0);
                }
            } catch (DeviceException e) {
                s.last = failure(e);
                ++s.nextSeq;
                return s.last;
            } catch (RuntimeException | Error e) {  // a bug in the agent: still a stored, final answer
                s.last = Response.json(500, Json.error("device error", "the agent failed: " + Runner.describe(e)));
                ++s.nextSeq;
                return s.last;
            }
            JsonObject o = new JsonObject();
            o.addProperty("seq", seq);
            if (answer.output().equals(Runner.OUTSIDE_PURPOSE)) {  // PROTOCOL.md: err, marked
                o.addProperty("output", "err");
                o.addProperty("outside_purpose", true);
            } else {
                o.addProperty("output", answer.output());
            }
            // Additive field (clients ignore it): the class of the exception that refused the callin.
            if (answer.exception() != null) o.addProperty("exception", answer.exception());
            s.last = Response.json(200, o);
            ++s.nextSeq;
            return s.last;
        } finally {
            s.lock.unlock();
        }
    }

    /**
     * A data input's values: {@code values} of {@code o} (absent: none), exactly as many JSON
     * integers as {@code callin} has parameters. Null (and {@code why[0]} says what is wrong) otherwise.
     */
    private long[] dataValues(String callin, JsonElement values, String[] why) {
        int arity = dataPurpose.arity(callin);
        if (values == null || values.isJsonNull()) {
            if (arity == 0) return new long[0];
            why[0] = "callin '" + callin + "' needs " + arity + " values";
            return null;
        }
        if (!values.isJsonArray()) {
            why[0] = "values must be an array of integers";
            return null;
        }
        JsonArray a = values.getAsJsonArray();
        if (a.size() != arity) {
            why[0] = "callin '" + callin + "' takes " + arity + " values, got " + a.size();
            return null;
        }
        long[] out = new long[arity];
        for (int i = 0; i < arity; ++i) {
            Long v = Json.integer(a.get(i));
            if (v == null) {
                why[0] = "values[" + i + "] " + Json.dump(a.get(i)) + " is not a 64-bit integer";
                return null;
            }
            out[i] = v;
        }
        return out;
    }

    private static JsonObject dataOutput(DataPurpose.Answer a) {
        JsonObject o = new JsonObject();
        o.addProperty("output", a.output());
        JsonArray values = new JsonArray();
        for (long v : a.values()) values.add(v);
        o.add("values", values);
        return o;
    }

    /** A data device's step (the caller holds the session's lock and checked seq). */
    private Response dataStep(Session s, long seq, boolean isWait, JsonObject body) {
        if (isWait) return Response.json(400, Json.error("invalid argument", "a data device has no wait (every callin answers its output)"));
        String name = Json.string(body.get("callin"));
        if (name == null) return Response.json(400, Json.error("invalid argument", "callin (a string) is required"));
        if (dataPurpose.arity(name) < 0) return Response.json(400, Json.error("invalid argument", "unknown callin '" + Json.excerpt(name) + "'"));
        String[] why = new String[1];
        long[] values = dataValues(name, body.get("values"), why);
        if (values == null) return Response.json(400, Json.error("invalid argument", why[0]));
        try {
            JsonObject o = dataOutput(s.slot.data.step(name, values));
            o.addProperty("seq", seq);
            s.last = Response.json(200, o);
        } catch (DeviceException e) {
            s.last = Response.json(500, Json.error("device error", e.getMessage()));
        } catch (RuntimeException | Error e) {  // a bug in the agent: still a stored, final answer
            s.last = Response.json(500, Json.error("device error", "the agent failed: " + Runner.describe(e)));
        }
        ++s.nextSeq;
        return s.last;
    }

    /** A data device's /v1/run: every input from a fresh instance. */
    private Response dataRun(JsonArray inputs) {
        List<String> names = new ArrayList<>();
        List<long[]> values = new ArrayList<>();
        String[] why = new String[1];
        for (JsonElement e : inputs) {
            String name = Json.string(e);
            JsonElement vs = null;
            if (name == null && e.isJsonObject()) {
                name = Json.string(e.getAsJsonObject().get("callin"));
                vs = e.getAsJsonObject().get("values");
            }
            if (name == null || dataPurpose.arity(name) < 0)
                return Response.json(400, Json.error("invalid argument", "unknown input " + Json.excerpt(Json.dump(e))));
            long[] v = dataValues(name, vs, why);
            if (v == null) return Response.json(400, Json.error("invalid argument", why[0]));
            names.add(name);
            values.add(v);
        }
        Slot slot = takeSlot();
        if (slot == null) return busy();
        try {
            slot.reset();
            JsonArray outs = new JsonArray();
            for (int i = 0; i < names.size(); ++i) outs.add(dataOutput(slot.data.step(names.get(i), values.get(i))));
            JsonObject o = new JsonObject();
            o.add("outputs", outs);
            o.addProperty("steps", names.size());
            o.addProperty("waits", 0);
            return Response.json(200, o);
        } catch (DeviceException e) {
            return Response.json(500, Json.error("device error", e.getMessage()));
        } catch (RuntimeException | Error e) {  // a bug in the agent: never leak the slot
            return Response.json(500, Json.error("device error", "the agent failed: " + Runner.describe(e)));
        } finally {
            releaseSlot(slot);
        }
    }

    private Response run(JsonObject body) {
        JsonElement inputs = body.get("inputs");
        if (dataPurpose != null && inputs != null && inputs.isJsonArray()) return dataRun(inputs.getAsJsonArray());
        if (inputs == null || !inputs.isJsonArray())
            return Response.json(400, Json.error("invalid argument", "inputs (an array of input names) is required"));
        long timeout = purpose.tmaxMs;
        if (body.has("timeout_ms")) {
            timeout = Json.unsigned(body.get("timeout_ms"));
            if (timeout < purpose.tminMs || timeout > 3_600_000 || !purpose.hasWait)
                return Response.json(400, Json.error("invalid argument", purpose.hasWait
                        ? "timeout_ms must be an integer in [" + purpose.tminMs + " (tmin), 3600000]"
                        : "the device has no wait input"));
        }
        Slot slot = takeSlot();
        if (slot == null) return busy();
        List<String> word = new ArrayList<>();
        for (JsonElement e : inputs.getAsJsonArray()) {
            String name = Json.string(e);
            if (name == null || (name.equals("wait") ? !slot.runner.hasWait() : !slot.runner.isCallin(name))) {
                releaseSlot(slot);
                return Response.json(400, Json.error("invalid argument", "unknown input " + Json.excerpt(Json.dump(e))));
            }
            word.add(name);
        }
        try {
            Runner.Run r = slot.runner.run(word, timeout);
            releaseSlot(slot);
            JsonObject o = new JsonObject();
            JsonArray outs = new JsonArray();
            int outside = -1;
            for (int k = 0; k < r.outputs().size(); ++k) {
                boolean denied = r.outputs().get(k).equals(Runner.OUTSIDE_PURPOSE);
                if (denied) outside = k;
                outs.add(denied ? "err" : r.outputs().get(k));  // PROTOCOL.md: err, its index marked
            }
            o.add("outputs", outs);
            o.addProperty("steps", r.steps());
            o.addProperty("waits", r.waits());
            if (outside >= 0) o.addProperty("outside_purpose", outside);
            return Response.json(200, o);
        } catch (DeviceException e) {
            releaseSlot(slot);
            return failure(e);
        } catch (RuntimeException | Error e) {  // a bug in the agent: never leak the slot
            releaseSlot(slot);
            return Response.json(500, Json.error("device error", "the agent failed: " + Runner.describe(e)));
        }
    }
}
