package typestar.agent;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The agent's HTTP/1.1 server (device/PROTOCOL.md, "Transport"), the Java mirror of the C++
 * agent's http_server.cpp: strict request parsing (a token method, an origin-form target of
 * printable ASCII, HTTP/1.1 or 1.0 — another version is 505 —, no line folding, header values
 * without control characters, at most one Authorization, Content-Length, Host, Origin and
 * Transfer-Encoding), keep-alive, JSON bodies on every answer (also its own errors), and bounded
 * resources: at most {@code maxConnections} connections (one more is answered 503 {@code too many
 * connections} on the accepting thread and closed, no thread started), and a connection that starts
 * no request, does not complete a started one, or does not take its answer within
 * {@code connectionTimeoutMs} is closed. The {@link Handler} admits a request on its headers alone
 * (the bearer token) before its body is read: a client without the token never holds a thread
 * while it sends a body.
 */
final class HttpServer {
    private static final Logger LOG = Logger.getLogger("typestar.device");

    /** An answer: a JSON body, or a fault ("drop": close without an answer, "garbage": a broken answer). */
    record Reply(int status, String body, boolean unauthorized, String fault) {}

    /** A parsed request; header names are lower case, repeated fields joined with ", ". */
    record Request(String method, String target, Map<String, String> headers) {
        String header(String name) {
            return headers.get(name);
        }
    }

    interface Handler {
        /** Called before the body is read: null to go on, else the answer (sent, then the connection is closed). */
        Reply admit(Request request);

        /** The answer to an admitted request with its body. */
        Reply handle(Request request, byte[] body);
    }

    static final class Limits {
        int maxHeaderBytes = 16 * 1024;
        long maxBodyBytes = 1024 * 1024;
        int maxConnections = 256;
        long connectionTimeoutMs = 30_000;
    }

    private static final class Connection {
        final Socket socket;
        volatile long deadline;  // System.nanoTime() after which the watchdog closes it

        Connection(Socket socket) {
            this.socket = socket;
        }
    }

    private final Limits limits;
    private final Handler handler;
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong refused = new AtomicLong();
    private ServerSocket listener;
    private Thread acceptor;
    private ExecutorService workers;
    private ScheduledExecutorService watchdog;
    private volatile boolean stopping;

    HttpServer(Limits limits, Handler handler) {
        this.limits = limits;
        this.handler = handler;
    }

    void start(String host, int port) throws IOException {
        listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getByName(host), port), 128);
        workers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "typestar-http");
            t.setDaemon(true);
            return t;
        });
        watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "typestar-http-watchdog");
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(10, Math.min(1000, limits.connectionTimeoutMs / 4));
        watchdog.scheduleWithFixedDelay(this::closeOverdue, period, period, TimeUnit.MILLISECONDS);
        acceptor = new Thread(this::acceptLoop, "typestar-http-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener == null ? 0 : listener.getLocalPort();
    }

    /** Connections open now (for tests and logs). */
    int connections() {
        return open.size();
    }

    void stop() {
        stopping = true;
        try {
            if (listener != null) listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        if (acceptor != null) {
            try {
                acceptor.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Connection c : open) closeQuietly(c.socket);
        if (watchdog != null) watchdog.shutdownNow();
        if (workers != null) workers.shutdownNow();
    }

    private void closeOverdue() {
        long now = System.nanoTime();
        for (Connection c : open)
            if (now - c.deadline > 0) {
                LOG.fine("closing a connection idle or slow for " + limits.connectionTimeoutMs + " ms");
                closeQuietly(c.socket);
            }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // gone already
        }
    }

    private void acceptLoop() {
        while (!stopping) {
            Socket s;
            try {
                s = listener.accept();
            } catch (IOException e) {
                if (stopping || listener.isClosed()) return;
                LOG.warning("accept: " + e.getMessage() + "; retrying");
                sleep(50);
                continue;
            }
            try {
                acceptOne(s);
            } catch (RuntimeException | Error e) {  // e.g. OutOfMemoryError: lose this connection, keep serving
                LOG.severe("accepting a connection failed: " + Runner.describe(e));
                closeQuietly(s);
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptOne(Socket s) {
        if (open.size() >= limits.maxConnections) {
            refuse(s, "the agent serves at most " + limits.maxConnections + " connections at once");
            return;
        }
        Connection c = new Connection(s);
        c.deadline = System.nanoTime() + limits.connectionTimeoutMs * 1_000_000L;
        open.add(c);
        try {
            workers.execute(() -> {
                try {
                    serve(c);
                } catch (IOException e) {
                    // the peer went away, or the watchdog closed the connection
                } catch (RuntimeException | Error e) {
                    LOG.severe("connection closed after an internal error: " + Runner.describe(e));
                } finally {
                    closeQuietly(s);
                    open.remove(c);
                }
            });
        } catch (RejectedExecutionException | OutOfMemoryError e) {  // no thread to be had
            open.remove(c);
            refuse(s, "cannot start a thread: " + e.getMessage());
        }
    }

    /** 503 too many connections, written on the accepting thread without blocking on the peer. */
    private void refuse(Socket s, String why) {
        long n = refused.incrementAndGet();
        if (n == 1 || n % 1000 == 0) LOG.warning("refusing a connection (" + n + " so far): " + why);
        try {
            byte[] text = render(new Reply(503, Json.dump(Json.error("too many connections", why + "; retry later")), false, null),
                    false, "Retry-After: 1\r\n");
            OutputStream out = s.getOutputStream();
            out.write(text);  // a fresh socket's send buffer takes it whole
            out.flush();
            endGracefully(s, s.getInputStream());
        } catch (IOException ignored) {
            // the peer is gone
        } finally {
            closeQuietly(s);
        }
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 201 -> "Created";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 409 -> "Conflict";
            case 411 -> "Length Required";
            case 413 -> "Payload Too Large";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 503 -> "Service Unavailable";
            case 505 -> "HTTP Version Not Supported";
            default -> "Status";
        };
    }

    static byte[] render(Reply r, boolean keepAlive, String extraHeaders) {
        byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
        StringBuilder h = new StringBuilder(160);
        h.append("HTTP/1.1 ").append(r.status()).append(' ').append(reason(r.status())).append("\r\n");
        h.append("Content-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
        h.append("Cache-Control: no-store\r\n");
        if (r.unauthorized()) h.append("WWW-Authenticate: Bearer realm=\"typestar-device\"\r\n");
        h.append(extraHeaders);
        h.append(keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n");
        byte[] head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = new byte[head.length + body.length];
        System.arraycopy(head, 0, out, 0, head.length);
        System.arraycopy(body, 0, out, head.length, body.length);
        return out;
    }

    private static Reply invalid(int status, String message) {
        return new Reply(status, Json.dump(Json.error("invalid argument", message)), false, null);
    }

    /** What reading a request head gave: a request, a refusal, or the end of the connection. */
    private record Head(Request request, boolean keepAlive, long length, Reply refusal) {}

    private void serve(Connection c) throws IOException {
        Socket s = c.socket;
        s.setTcpNoDelay(true);
        InputStream in = new BufferedInputStream(s.getInputStream(), 8192);
        OutputStream out = s.getOutputStream();
        long timeout = limits.connectionTimeoutMs * 1_000_000L;
        while (!stopping) {
            c.deadline = System.nanoTime() + timeout;  // waiting for a request
            int first = in.read();
            if (first < 0) return;
            c.deadline = System.nanoTime() + timeout;  // the whole request must arrive in time
            Head head = readHead(in, first);
            if (head == null) return;
            Reply refusal = head.refusal() != null ? head.refusal() : handler.admit(head.request());
            if (refusal != null) {  // refused on its head: the body is never read
                out.write(render(refusal, false, ""));
                out.flush();
                endGracefully(s, in);
                return;
            }
            byte[] body = in.readNBytes((int) head.length());
            if (body.length < head.length()) return;
            c.deadline = Long.MAX_VALUE / 2 + System.nanoTime();  // the device's time is not the client's
            Reply reply;
            boolean failed = false;
            try {
                reply = handler.handle(head.request(), body);
            } catch (RuntimeException | Error e) {
                failed = true;
                LOG.severe(head.request().method() + " " + head.request().target() + ": the agent failed: " + Runner.describe(e));
                reply = new Reply(500, Json.dump(Json.error("unknown error", "the agent failed: " + Runner.describe(e))), false, null);
            }
            c.deadline = System.nanoTime() + timeout;  // the client must take its answer in time
            if ("drop".equals(reply.fault())) return;
            if ("garbage".equals(reply.fault())) {
                out.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                out.write(new byte[] {1, 2, 'g', 'a', 'r', 'b', 'a', 'g', 'e', '{', ']', (byte) 0xff, (byte) 0xfe});
                out.flush();
                continue;
            }
            boolean keepAlive = head.keepAlive() && !failed;
            out.write(render(reply, keepAlive, ""));
            out.flush();
            if (!keepAlive) return;
        }
    }

    /**
     * Ends a connection whose request was not read whole: the answer first (shutdown of the output),
     * then what the client sent already is read, so that closing does not reset the answer away.
     */
    private static void endGracefully(Socket s, InputStream in) {
        try {
            s.shutdownOutput();
            for (int i = 0; i < 16; ++i) {
                int n = Math.min(in.available(), 65536);
                if (n <= 0) break;
                in.readNBytes(n);
            }
        } catch (IOException ignored) {
            // the peer is gone
        }
    }

    /** Reads the head (its first byte given) up to the empty line; null at the end of the stream. */
    private Head readHead(InputStream in, int first) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(512);
        buf.write(first);
        int matched = first == '\r' ? 1 : 0;  // progress through "\r\n\r\n"
        while (matched < 4) {
            if (buf.size() >= limits.maxHeaderBytes + 4)
                return refusal(431, "request headers exceed " + limits.maxHeaderBytes + " bytes");
            int b = in.read();
            if (b < 0) return null;
            buf.write(b);
            if (b == '\r') matched = matched == 2 ? 3 : 1;
            else if (b == '\n' && (matched == 1 || matched == 3)) ++matched;
            else matched = 0;
        }
        return parse(new String(buf.toByteArray(), 0, buf.size() - 4, StandardCharsets.ISO_8859_1));
    }

    private static Head refusal(int status, String message) {
        return new Head(null, false, 0, invalid(status, message));
    }

    /** RFC 9110 §5.6.2 tchar. */
    private static boolean isTchar(char c) {
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
        return "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    private static boolean isToken(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); ++i)
            if (!isTchar(s.charAt(i))) return false;
        return true;
    }

    private static boolean isOriginForm(String s) {
        if (s.isEmpty() || s.charAt(0) != '/') return false;
        for (int i = 0; i < s.length(); ++i)
            if (s.charAt(i) <= 0x20 || s.charAt(i) >= 0x7f) return false;
        return true;
    }

    /** RFC 9110 §5.5 field-value: visible characters, SP, HTAB and obs-text. */
    private static boolean isFieldValue(String s) {
        for (int i = 0; i < s.length(); ++i) {
            char c = s.charAt(i);
            if (c != '\t' && (c < 0x20 || c == 0x7f)) return false;
        }
        return true;
    }

    private static String trimOws(String s) {
        int b = 0;
        int e = s.length();
        while (b < e && (s.charAt(b) == ' ' || s.charAt(b) == '\t')) ++b;
        while (e > b && (s.charAt(e - 1) == ' ' || s.charAt(e - 1) == '\t')) --e;
        return s.substring(b, e);
    }

    private static final Set<String> SINGLE = Set.of("authorization", "content-length", "origin", "host", "transfer-encoding");

    private Head parse(String head) {
        int lineEnd = head.indexOf("\r\n");
        String line = lineEnd < 0 ? head : head.substring(0, lineEnd);
        int sp1 = line.indexOf(' ');
        int sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
        if (sp2 < 0 || line.indexOf(' ', sp2 + 1) >= 0)
            return refusal(400, "malformed request line (expected METHOD TARGET HTTP/1.1)");
        String method = line.substring(0, sp1);
        String target = line.substring(sp1 + 1, sp2);
        String version = line.substring(sp2 + 1);
        if (!isToken(method)) return refusal(400, "malformed request line: the method is not a token");
        if (!isOriginForm(target))
            return refusal(400, "malformed request target (expected a path of printable ASCII characters)");
        boolean keepAlive = true;
        if (version.equals("HTTP/1.0")) {
            keepAlive = false;
        } else if (!version.equals("HTTP/1.1")) {
            boolean http = version.length() == 8 && version.startsWith("HTTP/") && Character.isDigit(version.charAt(5))
                    && version.charAt(6) == '.' && Character.isDigit(version.charAt(7));
            return http ? refusal(505, "HTTP version not supported (HTTP/1.1 expected)")
                        : refusal(400, "malformed request line (expected METHOD TARGET HTTP/1.1)");
        }
        int q = target.indexOf('?');
        if (q >= 0) target = target.substring(0, q);
        Map<String, String> headers = new HashMap<>();
        int pos = lineEnd < 0 ? head.length() : lineEnd + 2;
        while (pos < head.length()) {
            int next = head.indexOf("\r\n", pos);
            String field = head.substring(pos, next < 0 ? head.length() : next);
            pos = next < 0 ? head.length() : next + 2;
            int colon = field.indexOf(':');
            if (colon < 0 || !isToken(field.substring(0, colon))) return refusal(400, "malformed header line");
            String value = trimOws(field.substring(colon + 1));
            if (!isFieldValue(value)) return refusal(400, "malformed header value");
            String name = field.substring(0, colon).toLowerCase(Locale.ROOT);
            String before = headers.putIfAbsent(name, value);
            if (before != null) {
                // Fields that must occur once: a second one would make "which one counts" ambiguous.
                if (SINGLE.contains(name)) return refusal(400, "more than one " + name + " header");
                headers.put(name, before + ", " + value);
            }
        }
        if (headers.containsKey("transfer-encoding"))
            return refusal(411, "chunked bodies are not supported; send Content-Length");
        String connection = headers.get("connection");
        if (connection != null)
            for (String t : connection.split(","))
                if (trimOws(t).equalsIgnoreCase("close")) keepAlive = false;
        long length = 0;
        String cl = headers.get("content-length");
        if (cl != null) {
            if (cl.isEmpty() || cl.length() > 12 || !cl.chars().allMatch(ch -> ch >= '0' && ch <= '9'))
                return refusal(400, "malformed Content-Length");
            length = Long.parseLong(cl);
        }
        if (length > limits.maxBodyBytes)
            return refusal(413, "request body exceeds " + limits.maxBodyBytes + " bytes");
        return new Head(new Request(method, target, headers), keepAlive, length, null);
    }
}
