package typestar.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar typestar-agent.jar --class-purpose FQCN [options]}: serves the learning purpose
 * named by FQCN (a {@link PurposeProvider}) over HTTP /v1, with typestar-device's security
 * defaults: loopback unless told otherwise, a bearer token on every request
 * (TYPESTAR_DEVICE_TOKEN, or a 0600 file), no browser (Origin) requests, bounded sizes. Prints
 * "typestar-agent: serving NAME on http://HOST:PORT" (the chosen port for --port 0) as its first line.
 */
public final class Main {
    private Main() {}

    private static final String USAGE = String.join("\n",
            "usage: java -jar typestar-agent.jar --class-purpose FQCN [options]",
            "  --class-purpose FQCN  a typestar.agent.PurposeProvider (or DataPurposeProvider: a data device)\n                        on the class path (required)",
            "  --host ADDR           address to bind (default 127.0.0.1; anything else exposes the device)",
            "  --port N              port (default 8765; 0: any free port, printed)",
            "  --token-file F        file with the bearer token, mode 0600 (default: $TYPESTAR_DEVICE_TOKEN,",
            "                        else $TYPESTAR_DEVICE_TOKEN_FILE)",
            "  --tmax MS, --tmin MS  override the purpose's timing",
            "  --parameter-seed N    seed of the parameterised callins' value generators (default: the purpose's, 1)",
            "  --values-per-partition N  values generated per partition (default: the purpose's, 4; fixed: all)",
            "  --max-sessions N      instances alive at once (default 64)",
            "  --idle-timeout S      idle sessions are reaped after S seconds (default 60)",
            "  --max-body BYTES      largest request body (default 1048576)",
            "  --max-connections N   connections served at once; one more is answered 503 (default 256)",
            "  --connection-timeout S  close a connection idle, or slow to send a request or take its answer,\n                        after S seconds (default 30)",
            "  --fault KIND[:AFTER[:TIMES]]  inject a fault for testing clients: none, crash, hang, drop, garbage",
            "  --hang-ms MS          how long a `hang` fault sleeps (default 3000)",
            "  --max-lifetime S      exit (status 0) after S seconds, a safety net for test fixtures (default: never)",
            "  --verbose             log every refused callin with its exception (logger typestar.device, stderr)");

    /** A command-line problem: printed with the usage hint, exit status 2. */
    private static final class UsageError extends Exception {
        private static final long serialVersionUID = 1L;

        UsageError(String m) {
            super(m);
        }
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    private static long number(String option, String value, long min, long max) throws UsageError {
        try {
            long v = Long.parseLong(value);
            if (v < min || v > max) throw new UsageError(option + ": " + value + " not in [" + min + ", " + max + "]");
            return v;
        } catch (NumberFormatException e) {
            throw new UsageError(option + ": '" + value + "' is not a number");
        }
    }

    // Eight options: a hand-written loop instead of a second jar dependency (commons-cli).
    static int run(String[] args) {
        Agent.Config config = new Agent.Config();
        config.port = 8765;
        String purposeClass = null;
        String tokenFile = null;
        Long tmax = null;
        Long tmin = null;
        Long seed = null;
        Long perPartition = null;
        long lifetime = 0;
        try {
            for (int i = 0; i < args.length; ++i) {
                String a = args[i];
                if (a.equals("--help") || a.equals("-h")) {
                    System.out.println(USAGE);
                    return 0;
                }
                if (a.equals("--verbose")) {
                    verbose();
                    continue;
                }
                if (!a.startsWith("--")) throw new UsageError("unexpected argument '" + a + "'");
                if (i + 1 >= args.length) throw new UsageError(a + " needs a value");
                String v = args[++i];
                switch (a) {
                    case "--class-purpose" -> purposeClass = v;
                    case "--host" -> config.host = v;
                    case "--port" -> config.port = (int) number(a, v, 0, 65535);
                    case "--token-file" -> tokenFile = v;
                    case "--tmax" -> tmax = number(a, v, 0, 3_600_000);
                    case "--tmin" -> tmin = number(a, v, 0, 3_600_000);
                    case "--parameter-seed" -> seed = number(a, v, Long.MIN_VALUE, Long.MAX_VALUE);
                    case "--values-per-partition" -> perPartition = number(a, v, 1, 10_000);
                    case "--max-sessions" -> config.maxSessions = (int) number(a, v, 1, 100_000);
                    case "--idle-timeout" -> config.idleTimeoutMs = number(a, v, 1, 86_400) * 1000;
                    case "--max-body" -> config.maxBodyBytes = number(a, v, 1, Integer.MAX_VALUE);
                    case "--max-connections" -> config.maxConnections = (int) number(a, v, 1, 100_000);
                    case "--connection-timeout" -> config.connectionTimeoutMs = number(a, v, 1, 86_400) * 1000;
                    case "--hang-ms" -> config.hangMs = number(a, v, 0, 3_600_000);
                    case "--fault" -> parseFault(v, config);
                    case "--max-lifetime" -> lifetime = number(a, v, 1, 30L * 86_400);
                    default -> throw new UsageError("unknown option " + a);
                }
            }
            if (purposeClass == null) throw new UsageError("--class-purpose is required");
        } catch (UsageError e) {
            System.err.println("typestar-agent: " + e.getMessage() + " (see --help)");
            return 2;
        }
        try {
            if (tokenFile != null) {
                config.token = readTokenFile(Path.of(tokenFile));
            } else if (System.getenv("TYPESTAR_DEVICE_TOKEN") != null && !System.getenv("TYPESTAR_DEVICE_TOKEN").isEmpty()) {
                config.token = System.getenv("TYPESTAR_DEVICE_TOKEN");
            } else if (System.getenv("TYPESTAR_DEVICE_TOKEN_FILE") != null && !System.getenv("TYPESTAR_DEVICE_TOKEN_FILE").isEmpty()) {
                config.token = readTokenFile(Path.of(System.getenv("TYPESTAR_DEVICE_TOKEN_FILE")));
            } else {
                    System.err.println("typestar-agent: a bearer token is required: set TYPESTAR_DEVICE_TOKEN or use --token-file");
                    return 2;
            }
            Object loaded = loadAny(purposeClass);
            Agent agent;
            String served;
            if (loaded instanceof DataPurpose<?> data) {
                if (seed != null || perPartition != null || tmax != null || tmin != null) {
                    System.err.println("typestar-agent: " + purposeClass + " is a data device: --tmax, --tmin, "
                            + "--parameter-seed and --values-per-partition do not apply (see --help)");
                    return 2;
                }
                agent = new Agent(data, config);
                served = data.name();
            } else {
            LearningPurpose<?> purpose = (LearningPurpose<?>) loaded;
            if (seed != null || perPartition != null)
                purpose.parameterValues(seed != null ? seed : purpose.parameterSeed,
                        perPartition != null ? (int) (long) perPartition : purpose.valuesPerPartition);
            if (tmax != null || tmin != null)
                purpose.timing(tmax != null ? tmax : purpose.tmaxMs, tmin != null ? tmin : purpose.tminMs);
            agent = new Agent(purpose, config);
            served = purpose.name();
            }
            if (!Set.of("127.0.0.1", "::1", "localhost").contains(config.host))
                System.err.println("typestar-agent: warning: listening on " + config.host
                        + " exposes the device beyond this machine; the token is sent in clear text");
            agent.start();
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                agent.stop();
                System.out.println("typestar-agent: stopped");
                System.out.flush();
                stopped.countDown();
            }));
            System.out.println("typestar-agent: serving " + served + " on " + agent.url());
            System.out.flush();
            if (lifetime > 0) {
                final long seconds = lifetime;
                Thread t = new Thread(() -> {
                    try {
                        Thread.sleep(seconds * 1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                    System.exit(0);
                }, "typestar-lifetime");
                t.setDaemon(true);
                t.start();
            }
            stopped.await();
            return 0;
        } catch (Exception e) {
            System.err.println("typestar-agent: " + e.getMessage());
            return 1;
        }
    }

    /** Logger typestar.device at level FINE, one line per record on stderr. */
    private static void verbose() {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null)
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT.%1$tL %4$s %3$s: %5$s%6$s%n");
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("typestar.device");
        java.util.logging.ConsoleHandler handler = new java.util.logging.ConsoleHandler();
        handler.setLevel(java.util.logging.Level.FINE);
        log.setLevel(java.util.logging.Level.FINE);
        log.addHandler(handler);
        log.setUseParentHandlers(false);
        KEEP.add(log);
    }

    /** Strong references: java.util.logging keeps loggers weakly, and would forget the level. */
    private static final java.util.List<java.util.logging.Logger> KEEP = new java.util.ArrayList<>();

    private static void parseFault(String text, Agent.Config c) throws UsageError {
        String[] parts = text.split(":", -1);
        if (parts.length > 3) throw new UsageError("fault '" + text + "': expected KIND[:AFTER[:TIMES]]");
        if (!Set.of("none", "crash", "hang", "drop", "garbage").contains(parts[0]))
            throw new UsageError("fault '" + text + "': unknown kind '" + parts[0] + "' (none, crash, hang, drop, garbage)");
        c.fault = parts[0];
        if (parts.length > 1) c.faultAfter = number("fault AFTER", parts[1], 0, Long.MAX_VALUE);
        if (parts.length > 2) c.faultTimes = number("fault TIMES", parts[2], 0, Long.MAX_VALUE);
    }

    /**
     * Instantiates the PurposeProvider or DataPurposeProvider named {@code fqcn} and returns its
     * validated LearningPurpose or DataPurpose; throws with a message naming the problem.
     */
    static Object loadAny(String fqcn) throws Exception {
        Class<?> c;
        try {
            c = Class.forName(fqcn);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("class '" + fqcn + "' not found on the class path");
        }
        if (!DataPurposeProvider.class.isAssignableFrom(c)) return load(fqcn);
        DataPurposeProvider p = (DataPurposeProvider) c.getDeclaredConstructor().newInstance();
        DataPurpose<?> purpose = p.dataPurpose();
        if (purpose == null) throw new IllegalArgumentException("class '" + fqcn + "': dataPurpose() returned null");
        purpose.validate();
        return purpose;
    }

    /** Instantiates the PurposeProvider named {@code fqcn}; throws with a message naming the problem. */
    static LearningPurpose<?> load(String fqcn) throws Exception {
        Class<?> c;
        try {
            c = Class.forName(fqcn);
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("class '" + fqcn + "' not found on the class path");
        }
        if (!PurposeProvider.class.isAssignableFrom(c))
            throw new IllegalArgumentException("class '" + fqcn + "' does not implement typestar.agent.PurposeProvider (or DataPurposeProvider)");
        PurposeProvider p = (PurposeProvider) c.getDeclaredConstructor().newInstance();
        LearningPurpose<?> purpose = p.purpose();
        if (purpose == null) throw new IllegalArgumentException("class '" + fqcn + "': purpose() returned null");
        purpose.validate();
        return purpose;
    }

    /**
     * Reads a bearer token from {@code path} (surrounding whitespace trimmed), with the rules of the
     * C++ read_token_file: the file must exist, not be empty, and not be readable or writable by
     * group or others (mode 0600 or stricter). Throws IOException naming the file.
     */
    public static String readTokenFile(Path path) throws IOException {
        Set<PosixFilePermission> perms;
        try {
            perms = Files.getPosixFilePermissions(path);
        } catch (IOException e) {
            throw new IOException("token file '" + path + "': cannot read it: " + e.getMessage());
        }
        int mode = 0;
        for (PosixFilePermission p : perms) mode |= 1 << (8 - p.ordinal());
        if ((mode & 077) != 0)
            throw new IOException("token file '" + path + "' is accessible by group or others (mode "
                    + Integer.toOctalString(mode) + "); make it 0600");
        String token = Files.readString(path, StandardCharsets.UTF_8).strip();
        if (token.isEmpty()) throw new IOException("token file '" + path + "' is empty");
        return token;
    }
}
