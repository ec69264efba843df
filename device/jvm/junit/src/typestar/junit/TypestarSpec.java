package typestar.junit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.function.Executable;
import typestar.agent.Agent;
import typestar.agent.DataPurpose;
import typestar.agent.LearningPurpose;

/**
 * A spec as JUnit 5 tests (docs/jvm-agent.md, "JUnit 5"): one dynamic test per transition of the
 * spec, nested per state ({@link #byState()}) or flat and named like the GoogleTest plugin's cases
 * ({@link #tests()}: {@code <Spec>.<State>_<symbol>}), each reporting its result of the spec's tests
 * as the session runs them against the team's {@link LearningPurpose}.
 *
 * <pre>{@code
 * @ExtendWith(TypestarReports.class)
 * class PipeSpecTest {
 *     @TestFactory
 *     Stream<DynamicNode> pipe() {
 *         return TypestarSpec.of("specs/pipe.yaml", new PipePurpose().purpose()).byState();
 *     }
 * }
 * }</pre>
 *
 * <p>The spec's tests run once per spec, in the session: the first test to run serves the purpose (an
 * {@link Agent} in this JVM on 127.0.0.1, any port, a fresh token) to {@code typestar check SPEC
 * --device URL --format json} ({@link CheckRun}) — shared prefixes, the cache, batching, the
 * late-callback judgement and the quiescence double-check of {@code typestar check} — and every test
 * reports its own result from it. Tests of one spec are safe under JUnit's parallel mode (they wait
 * for the one run); different specs run concurrently, each through its own agent.
 *
 * <p>The {@code typestar} command-line tool is the one suite generator, runner and learner: the plan
 * comes from {@code typestar suite SPEC --format json}; a missing spec, and the proposal after a
 * failure, come from {@code typestar learn}, to which this class serves the purpose itself (an
 * {@link Agent} on 127.0.0.1, any port, a fresh token, only while it learns). The rules are the
 * plugin's: a missing spec is learned into {@code <spec>.proposed.yaml} for review (with
 * {@code TYPESTAR_UPDATE=1}: into the spec); with {@code CI} set nothing is ever written (a missing
 * spec fails; a proposal is printed in full). Update mode ({@code -Dtypestar.update=true} or
 * {@code TYPESTAR_UPDATE=1}) takes a proposal as {@code typestar accept --auto} does: the stored
 * state names are kept, and a test passes when the written spec explains the device's answer.
 *
 * <p>Settings: the tool ({@code -Dtypestar.cli}, else {@code TYPESTAR_CLI}, else
 * {@code typestar} on the PATH; {@link #cli} replaces it); a system property over the environment over
 * the builder for the distinguisher bound of learning and of the suite ({@code -Dtypestar.bound},
 * {@code TYPESTAR_BOUND}, {@link #bound(int)}; a number, or {@code auto}: learning raises it until the
 * learned machine does not need it all, a stored spec's suite runs at its own bound); the learner
 * ({@code -Dtypestar.learner}, {@code TYPESTAR_LEARNER}, {@link #learner}: lstar or lsharp); tmax and
 * tmin over the purpose's own ({@code -Dtypestar.tmax}, {@code TYPESTAR_TMAX}, {@link #tmax};
 * {@code -Dtypestar.tmin}, {@code TYPESTAR_TMIN}, {@link #tmin}; in ms): the purpose runs with them,
 * {@code typestar learn} records them, and the assumptions name them, with the spec's tmax when it
 * differs from the one the run waits with. A bad
 * value is one failing test. A spec of another class, or with other callins or callbacks than the
 * purpose, is one failing test {@code <Spec>.purpose} before any word runs.
 *
 * <p>A register-automaton spec ({@code kind: register-automaton}) is checked the same way against a
 * {@link DataPurpose} ({@link #of(String, DataPurpose)}): one test per transition of the automaton
 * ({@code <location>_<input>}), its generalised Algorithm 2 data words built and run by
 * {@code typestar check}, a failure with its data trace and the proposal, a missing spec learned
 * with SL*. A data device never waits: tmax and tmin settings do not apply to it and are not read.
 */
public final class TypestarSpec {
    private final Path spec;
    private final Served purpose;
    String cli;
    String bound;       // a number, "auto", or null: the CLI's default (learning), the spec's (suite)
    String boundFrom = "the default";
    String learner;     // lstar, lsharp, or null: the CLI's default
    Long tmax;          // ms over the purpose's own, or null
    Long tmin;
    private String timingFrom = "";  // where the override came from, for the assumptions
    private long ownTmax = -1;       // the purpose's own timing, read before any override
    private long ownTmin = -1;
    private Double specTmax;         // the stored spec's tmax, when it records one
    private final List<String> errors = new ArrayList<>();  // bad settings, each naming where it came from
    private Proposals proposals;
    private Long plannedBound;       // the suite's bound B, once generated     // the proposal flow of the current plan
    final String originClass;   // the test class and factory method that made this (Serve re-runs it)
    final String originMethod;

    /** Set by {@link Serve}: tests() adds the spec here and returns no test (the purpose is served instead). */
    static final ThreadLocal<List<TypestarSpec>> CAPTURE = new ThreadLocal<>();

    private TypestarSpec(Path spec, Served purpose, StackWalker.StackFrame origin) {
        this.spec = spec;
        this.purpose = purpose;
        this.originClass = origin == null ? null : origin.getClassName();
        this.originMethod = origin == null ? null : origin.getMethodName();
        String property = System.getProperty("typestar.cli");
        String env = System.getenv("TYPESTAR_CLI");
        this.cli = property != null && !property.isEmpty() ? property : env != null && !env.isEmpty() ? env : "typestar";
    }

    /** The spec at {@code path} (relative: to the working directory) checked against {@code purpose}. */
    public static TypestarSpec of(String path, LearningPurpose<?> purpose) {
        return of(Path.of(path), purpose);
    }

    public static TypestarSpec of(Path path, LearningPurpose<?> purpose) {
        if (purpose == null) throw new IllegalArgumentException("TypestarSpec.of: no learning purpose for " + path);
        return new TypestarSpec(path, Served.of(purpose), caller());
    }

    /** The register-automaton spec at {@code path} (relative: to the working directory) checked against the data device {@code purpose}. */
    public static TypestarSpec of(String path, DataPurpose<?> purpose) {
        return of(Path.of(path), purpose);
    }

    public static TypestarSpec of(Path path, DataPurpose<?> purpose) {
        if (purpose == null) throw new IllegalArgumentException("TypestarSpec.of: no data purpose for " + path);
        return new TypestarSpec(path, Served.of(purpose), caller());
    }

    /** The test class and factory method that called of() (Serve re-runs it for the reproduce line). */
    private static StackWalker.StackFrame caller() {
        return StackWalker.getInstance()
                .walk(frames -> frames.filter(f -> !f.getClassName().equals(TypestarSpec.class.getName())).findFirst())
                .orElse(null);
    }

    /** The purpose's class name as a test-suite name (the spec's, when they match). */
    String suiteName() {
        return identifier(purpose.name());
    }

    /** The spec file's name without .yaml / .yml. */
    String stem() {
        return spec.getFileName().toString().replaceFirst("\\.ya?ml$", "");
    }

    Path specPath() {
        return spec;
    }

    Served purpose() {
        return purpose;
    }

    /** The typestar command-line tool to run (default: see the class comment). */
    public TypestarSpec cli(String path) {
        this.cli = path;
        return this;
    }

    /** The distinguisher bound B of learning and of the suite (-Dtypestar.bound and TYPESTAR_BOUND win). */
    public TypestarSpec bound(int b) {
        return bound(String.valueOf(b));
    }

    /** The bound as text: a non-negative number, or {@code "auto"} (-Dtypestar.bound and TYPESTAR_BOUND win). */
    public TypestarSpec bound(String b) {
        this.bound = b;
        this.boundFrom = "bound(" + b + ")";
        return this;
    }

    /** The learner of a missing spec and of proposals: lstar or lsharp (-Dtypestar.learner and TYPESTAR_LEARNER win). */
    public TypestarSpec learner(String name) {
        this.learner = name;
        return this;
    }

    /** tmax in ms over the purpose's own (-Dtypestar.tmax and TYPESTAR_TMAX win). */
    public TypestarSpec tmax(long ms) {
        this.tmax = ms;
        return this;
    }

    /** tmin in ms over the purpose's own (-Dtypestar.tmin and TYPESTAR_TMIN win). */
    public TypestarSpec tmin(long ms) {
        this.tmin = ms;
        return this;
    }

    /** The value of -Dtypestar.NAME, else of the environment variable, else {@code fallback}; {@code from[0]}: where. */
    private static String setting(String property, String variable, String fallback, String[] from) {
        String p = System.getProperty(property);
        if (p != null && !p.isEmpty()) {
            from[0] = "-D" + property + "=" + p;
            return p;
        }
        String e = System.getenv(variable);
        if (e != null && !e.isEmpty()) {
            from[0] = variable + "=" + e;
            return e;
        }
        return fallback;
    }

    /** Reads the settings (system property over environment over builder) into bound, learner and errors. */
    private void resolveSettings() {
        errors.clear();
        String[] from = {boundFrom};
        bound = setting("typestar.bound", "TYPESTAR_BOUND", bound, from);
        boundFrom = from[0];
        if (bound != null && !bound.equals("auto") && !bound.matches("[0-9]+")) {
            errors.add(boundFrom + ": the bound is a non-negative integer or 'auto'");
            bound = null;
        }
        from[0] = learner == null ? "" : "learner(" + learner + ")";
        learner = setting("typestar.learner", "TYPESTAR_LEARNER", learner, from);
        if (learner != null && !learner.equals("lstar") && !learner.equals("lsharp")) {
            errors.add(from[0] + ": not lstar or lsharp");
            learner = null;
        }
        long[] own = ownTmax < 0 ? purpose.ownTiming() : new long[] {ownTmax, ownTmin};
        if (own == null) {  // a data device never waits: no tmax or tmin to read
            if (tmax != null || tmin != null)
                errors.add("tmax() / tmin(): " + purpose.name() + " is a data device (a register automaton), which never waits");
            timingFrom = "";
            return;
        }
        ownTmax = own[0];
        ownTmin = own[1];
        List<String> sources = new ArrayList<>();
        Long[] values = new Long[2];
        String[][] keys = {{"typestar.tmax", "TYPESTAR_TMAX", "tmax"}, {"typestar.tmin", "TYPESTAR_TMIN", "tmin"}};
        Long[] built = {tmax, tmin};
        for (int i = 0; i < 2; ++i) {
            from[0] = built[i] == null ? "" : keys[i][2] + "(" + built[i] + ")";
            String v = setting(keys[i][0], keys[i][1], built[i] == null ? null : String.valueOf(built[i]), from);
            if (v == null) continue;
            if (!v.matches("[0-9]{1,7}") || Long.parseLong(v) > 3_600_000L) {
                errors.add(from[0] + ": milliseconds from 0 to 3600000");
                continue;
            }
            values[i] = Long.parseLong(v);
            sources.add(from[0]);
        }
        tmax = values[0];
        tmin = values[1];
        timingFrom = String.join(", ", sources);
        long t = tmax != null ? tmax : ownTmax;
        long m = tmin != null ? tmin : ownTmin;
        if (m > t) {
            errors.add(timingFrom + ": tmin " + m + " ms is larger than tmax " + t + " ms");
        } else if (tmax != null || tmin != null) {
            purpose.timing(t, m);  // the local device and the served one (learning) wait with it
        }
    }

    /**
     * How the run's tmax was set, when not the purpose's own, and the spec's when it differs:
     * "tmax 60 ms set by -Dtypestar.tmax=60 (the purpose's own: tmax 20 ms, tmin 0 ms); the spec
     * records tmax=100 ms, this run waits 60 ms; " (each part when it applies), else "".
     */
    private String timingNote(long runTmax) {
        String note = "";
        if (!timingFrom.isEmpty()) {
            List<String> set = new ArrayList<>();
            if (tmax != null) set.add("tmax " + tmax + " ms");
            if (tmin != null) set.add("tmin " + tmin + " ms");
            note += String.join(", ", set) + " set by " + timingFrom + " (the purpose's own: tmax " + ownTmax + " ms, tmin "
                    + ownTmin + " ms); ";
        }
        if (specTmax != null && specTmax != (double) runTmax)
            note += "the spec records tmax=" + (specTmax == Math.rint(specTmax) ? String.valueOf(specTmax.longValue()) : String.valueOf(specTmax))
                    + " ms, this run waits " + runTmax + " ms; ";
        return note;
    }

    /** How the run's tmax was set, when not the purpose's own (for the assumptions), else "". */
    String timingNote() {
        String note = timingNote(tmax != null ? tmax : ownTmax);
        return note.isEmpty() ? "" : "timing: " + note.replaceFirst("; $", "");
    }

    /** CI: the environment variable CI or -Dtypestar.ci. */
    static boolean ci() {
        return envTrue("CI") || propertyTrue("typestar.ci");
    }

    /** Update mode: TYPESTAR_UPDATE or -Dtypestar.update; never on CI. */
    static boolean update() {
        return (envTrue("TYPESTAR_UPDATE") || propertyTrue("typestar.update")) && !ci();
    }

    static boolean propertyTrue(String name) {
        return truth(System.getProperty(name));
    }

    // ---- settings (the GoogleTest plugin's: CI, TYPESTAR_UPDATE) ----

    static boolean envTrue(String name) {
        return truth(System.getenv(name));
    }

    private static boolean truth(String v) {
        if (v == null) return false;
        v = v.trim().toLowerCase(Locale.ROOT);
        return !(v.isEmpty() || v.equals("0") || v.equals("false") || v.equals("no") || v.equals("off"));
    }

    /** {@code text} with every character outside [A-Za-z0-9_] replaced by {@code _} (the plugin's test_identifier). */
    static String identifier(String text) {
        if (text.isEmpty()) return "_";
        StringBuilder b = new StringBuilder(text.length());
        for (char c : text.toCharArray()) b.append((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ? c : '_');
        return b.toString();
    }

    String device() {
        return purpose.describe();
    }

    // ---- the tests ----

    /** The tests: one per transition, or one {@code <Spec>.learn} when the spec does not exist. */
    public Stream<DynamicTest> tests() {
        return plan().stream().map(p -> DynamicTest.dynamicTest(p.name(), p.source(), reported(p)));
    }

    /**
     * The same tests nested per state, for reports: one {@link DynamicContainer} per state of the
     * spec (display name: the state, source: the spec), holding its transitions' tests by their
     * transition names ({@code Open_send}); the tests about the whole spec ({@code <Spec>.unknown},
     * {@code .learn}, {@code .load}, {@code .purpose}, {@code .settings}) stay at the top.
     * <pre>{@code
     * @TestFactory
     * Stream<DynamicNode> connection() {
     *     return TypestarSpec.of("specs/connection.yaml", new ConnectionPurpose().purpose()).byState();
     * }
     * }</pre>
     */
    public Stream<DynamicNode> byState() {
        java.util.LinkedHashMap<String, List<DynamicNode>> states = new java.util.LinkedHashMap<>();
        List<DynamicNode> top = new ArrayList<>();
        for (Planned p : plan()) {
            if (p.state() == null) top.add(DynamicTest.dynamicTest(p.name(), p.source(), reported(p)));
            else states.computeIfAbsent(p.state(), k -> new ArrayList<>()).add(DynamicTest.dynamicTest(p.transition(), p.source(), reported(p)));
        }
        List<DynamicNode> out = new ArrayList<>();
        URI file = spec.toAbsolutePath().toUri();
        states.forEach((state, tests) -> out.add(DynamicContainer.dynamicContainer(state, file, tests.stream())));
        out.addAll(top);
        return out.stream();
    }

    /** A planned test: its state and transition name (null for a test about the whole spec), full name, source, body. */
    private record Planned(String state, String transition, String name, URI source, Executable body) {
        static Planned top(String name, Executable body) {
            return new Planned(null, null, name, null, body);
        }
    }

    /**
     * The test's body with its report entries ({@link TypestarReports} publishes them when the test
     * class has it): typestar.spec, typestar.bound (when the suite was generated), typestar.state and
     * typestar.transition (a transition's test), typestar.test (the full name).
     */
    private Executable reported(Planned p) {
        Map<String, String> entries = new java.util.LinkedHashMap<>();
        entries.put("typestar.spec", spec.toString());
        if (plannedBound != null) entries.put("typestar.bound", String.valueOf(plannedBound));
        if (p.state() != null) {
            entries.put("typestar.state", p.state());
            entries.put("typestar.transition", p.transition());
        }
        entries.put("typestar.test", p.name());
        try {
            purpose.addRun(entries);
        } catch (IllegalArgumentException e) {  // an invalid purpose: its own test says so
        }
        return new TypestarReports.Reported(entries, p.body());
    }

    private List<Planned> plan() {
        resolveSettings();  // also when served: the purpose runs with the run's tmax / tmin
        proposals = new Proposals(this);
        plannedBound = null;
        List<TypestarSpec> capturing = CAPTURE.get();
        if (capturing != null) {  // Serve: the purpose is served to the CLI, no test runs
            capturing.add(this);
            return List.of();
        }
        String stemName = identifier(spec.getFileName().toString().replaceFirst("\\.ya?ml$", ""));
        if (!errors.isEmpty()) {
            String message = "typestar: bad settings for " + spec + "; no conformance test ran:\n  " + String.join("\n  ", errors);
            return List.of(Planned.top(stemName + ".settings", () -> Assertions.fail(message)));
        }
        if (!Files.exists(spec)) return List.of(Planned.top(stemName + ".learn", proposals::learnMissing));
        // The suite, and the spec compared with this purpose by the session (device_mismatch): the
        // purpose's /v1/status goes to the CLI in a file.
        JsonObject json = null;
        String why;
        Path status = null;
        try {
            status = Files.createTempFile("typestar-status-", ".json");
            Files.writeString(status, purpose.status());
            List<String> suiteCommand = new ArrayList<>(List.of(cli, "suite", spec.toString(), "--format", "json",
                    "--device-status", status.toString()));
            if (bound != null && !bound.equals("auto")) suiteCommand.addAll(List.of("--bound", bound));  // auto: the spec's own
            Cli.Result suite = Cli.run(suiteCommand, Map.of());
            why = suite.describe();
            if (suite.exit() == 0) {
                try {
                    json = JsonParser.parseString(suite.out()).getAsJsonObject();
                    if (!json.has("transitions") || !json.has("device_mismatch")) {
                        why = cli + " suite printed no transitions or no device_mismatch (an older typestar CLI)";
                        json = null;
                    }
                } catch (RuntimeException e) {
                    why = cli + " suite printed what is not JSON: " + e.getMessage();
                }
            }
        } catch (java.io.IOException e) {
            why = "cannot write the purpose's status for " + cli + " suite: " + e.getMessage();
        } finally {
            if (status != null) {
                try {
                    Files.deleteIfExists(status);
                } catch (java.io.IOException ignored) {
                    // a temporary file left behind harms nothing
                }
            }
        }
        if (json == null) {
            String message = "typestar: cannot generate the suite of " + spec + ": " + why;
            String stem = identifier(spec.getFileName().toString().replaceFirst("\\.ya?ml$", ""));
            return List.of(Planned.top(stem + ".load", () -> Assertions.fail(message)));
        }
        JsonObject parsed = json;
        plannedBound = json.get("bound").getAsLong();
        String suiteName = json.get("test_suite").getAsString();
        // The stored spec's tmax (when it records one), for the timing note.
        if (json.has("timing") && json.getAsJsonObject("timing").has("tmax_ms"))
            specTmax = json.getAsJsonObject("timing").get("tmax_ms").getAsDouble();
        // The spec must be of the purpose's class, callins and callbacks (the session compared them):
        // else one failure, no word run.
        JsonObject mismatch = json.getAsJsonObject("device_mismatch");
        if (!mismatch.getAsJsonArray("differences").isEmpty())
            return List.of(Planned.top(suiteName + ".purpose", () -> failMismatch(mismatch, parsed)));
        // The tests run once, in the session (typestar check --format json), on the first test's turn.
        CheckRun check = new CheckRun(this, proposals, plannedBound);
        List<Planned> out = new ArrayList<>();
        boolean anyUnknown = false;
        for (JsonElement e : json.getAsJsonArray("transitions")) {
            JsonObject t = e.getAsJsonObject();
            if (t.has("unknown")) {  // reported once for the spec below, never run
                anyUnknown = true;
                continue;
            }
            String transition = t.get("name").getAsString();
            String name = suiteName + "." + transition;
            int line = t.get("line").getAsInt();
            URI source = URI.create(spec.toAbsolutePath().toUri() + (line > 0 ? "?line=" + line : ""));
            String state = t.get("state").getAsString();
            String input = t.get("input").getAsString();
            out.add(new Planned(state, transition, name, source, () -> check.report(name, transition, state, input)));
        }
        // Unknown transitions of a three-valued spec: one test for the spec, aborted (not tested).
        if (anyUnknown) {
            List<String> listed = new ArrayList<>();
            List<String> where = new ArrayList<>();
            for (JsonElement e : json.getAsJsonArray("transitions")) {
                JsonObject u = e.getAsJsonObject();
                if (!u.has("unknown")) continue;
                listed.add(u.get("state").getAsString() + " " + u.get("input").getAsString());
                where.add(spec + ":" + u.get("line").getAsInt() + ": state " + u.get("state").getAsString() + ", input "
                        + u.get("input").getAsString() + " (" + u.get("unknown").getAsString() + ")");
            }
            String message = "typestar: " + listed.size() + " unknown transition(s) of " + spec.getFileName()
                    + " not tested (three-valued spec): " + String.join(", ", listed);
            out.add(new Planned(null, null, suiteName + ".unknown", spec.toAbsolutePath().toUri(), () -> {
                System.out.println("typestar: not tested (unknown in the spec):\n  " + String.join("\n  ", where));
                Assumptions.abort(message);
            }));
        }
        return out;
    }

    /**
     * The one failure of a spec that does not match its purpose (the session's device_mismatch).
     * Another class: no re-learning (wrong spec or wrong purpose); other callins or callbacks of the
     * same class: the purpose re-learned from scratch, for review (accepting it needs --force).
     */
    private void failMismatch(JsonObject mismatch, JsonObject suite) {
        StringBuilder m = new StringBuilder("typestar: " + mismatch.get("message").getAsString());
        if (mismatch.get("another_class").getAsBoolean()) Assertions.fail(m.toString());
        // Other callins or callbacks of the same class: the CLI's check fails on them and the session
        // proposes the purpose re-learned, with the accept command that takes it.
        CheckRun check = new CheckRun(this, proposals, suite.get("bound").getAsLong());
        JsonObject p = check.proposal();
        if (p == null || p.get("status").getAsString().equals("error")) {
            String why = p != null ? p.get("error").getAsString()
                    : check.runError() != null ? check.runError() : "typestar check proposed nothing (the device conformed to the spec's words)";
            m.append("Re-learning failed: ").append(why).append('\n');
            Assertions.fail(m.toString());
        }
        m.append("If the class really changed, here it is re-learned from the purpose: ").append(p.get("summary").getAsString())
                .append(p.get("report").getAsString());
        if (p.get("status").getAsString().equals("updated")) {
            System.out.println(m);
            return;
        }
        Assertions.fail(m.toString());
    }

}
