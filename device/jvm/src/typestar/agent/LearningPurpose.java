package typestar.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A learning purpose for instances of {@code T} (DroidStar §2.1, §5.1; the Java mirror of the C++
 * {@code typestar::LearningPurpose<T>}): how to get a fresh instance with its listeners registered
 * (reset), which callins exist, which callbacks the listeners report (several raw callbacks may be
 * merged into one symbol, §5.3), the timing assumptions tmin/tmax (§5.2), an optional learning
 * purpose filter, and whether a {@code wait} answered {@code quiet} leaves the state unchanged.
 *
 * <pre>{@code
 * LearningPurpose.of("Timer", Harness.class)
 *     .reset(sink -> new Harness(sink))
 *     .teardown(h -> h.timer.cancel())
 *     .callin("schedule", h -> h.timer.schedule(h.task, 30))
 *     .callin("cancel", h -> h.timer.cancel())
 *     .callback("run")
 *     .timing(150, 10)
 *     .quietIsStable();
 * }</pre>
 *
 * <p>Parameterised callins (PSYCO): {@link #callinWith} declares a callin's signature and a snippet
 * taking one printed argument tuple; {@link #partition} groups its concrete values into named
 * partitions, each with its guard in words and a deterministic {@link Values} generator. Every
 * concrete value becomes an ordinary input {@code callin/vK} (K numbered through the callin's
 * partitions in order), and /v1/status declares the grouping under {@code parameters}
 * (device/PROTOCOL.md), so alphabet refinement starts from the partitions:
 *
 * <pre>{@code
 * .callinWith("connect", List.of(param("snk", "object")), (p, v) -> p.connect(v))
 * .partition("connect", "null", "snk == null", Values.fixed("null"))
 * .partition("connect", "nonnull", "snk != null", Values.fixed("fresh sink", "connected sink"))
 * }</pre>
 *
 * <p>Builder methods throw {@link IllegalArgumentException} for a symbol declared twice; the agent
 * calls {@link #validate()} before serving.
 */
public final class LearningPurpose<T> {
    /** Reserved symbols: never a callin or callback name. */
    static final Set<String> RESERVED = Set.of("wait", "quiet", "ok", "err");

    final String name;
    String framework = "";
    Reset<T> reset;
    Teardown<T> teardown;
    /** Plain callins (one snippet each). */
    final Map<String, Callin<T>> callins = new LinkedHashMap<>();
    /** Parameterised callins, by symbol. */
    final Map<String, Parameterised<T>> parameterised = new LinkedHashMap<>();
    /** Every callin symbol (plain or parameterised) in declaration order. */
    final List<String> order = new ArrayList<>();
    /** Callins performed by the peer, not the client (spec {@code role: environment}), in declaration order. */
    final List<String> environment = new ArrayList<>();
    /** Seed and count of the partitions' value generators. */
    long parameterSeed = 1;
    int valuesPerPartition = 4;
    /** Built by {@link #validate()}: the device inputs (plain callins, concrete values) in order. */
    Map<String, Callin<T>> inputs = Map.of();
    /** Built by {@link #validate()}: the parameterised callins with their concrete values. */
    List<ExpandedCallin> expanded = List.of();
    /** callback symbol -> raw source names (the symbol itself when empty). */
    final Map<String, List<String>> callbacks = new LinkedHashMap<>();
    long tmaxMs = 200;
    long tminMs = 0;
    boolean quietIsStable = false;
    boolean callbacksDrained = false;
    PurposeFilter filter;
    /** Mealy devices: callins whose snippet returns the output it answers. */
    final Map<String, AnsweringCallin<T>> answering = new LinkedHashMap<>();
    /** Mealy devices: named outputs declared up front (others are learned when answered). */
    final List<String> outputs = new ArrayList<>();
    /** Whether the device has the quiescence input {@code wait} (false only without callbacks). */
    boolean hasWait = true;
    /** Whether {@code err} is absorbing (the default). */
    boolean errAbsorbing = true;
    /** Whether anything of a Mealy device was declared (named outputs, no wait, err not absorbing). */
    boolean mealy = false;

    private LearningPurpose(String name) {
        this.name = name;
    }

    /** Starts a purpose for the class {@code name}; {@code type} only fixes {@code T}. */
    public static <T> LearningPurpose<T> of(String name, Class<T> type) {
        return new LearningPurpose<>(name);
    }

    /** The framework version reported in /v1/status and in learned specs' provenance. */
    public LearningPurpose<T> framework(String version) {
        this.framework = Objects.requireNonNull(version);
        return this;
    }

    /** The reset snippet: a fresh instance per session, listeners registered on the sink. */
    public LearningPurpose<T> reset(Reset<T> snippet) {
        this.reset = snippet;
        return this;
    }

    /** A tear-down snippet run when a session ends (exceptions are logged and ignored). */
    public LearningPurpose<T> teardown(Teardown<T> snippet) {
        this.teardown = snippet;
        return this;
    }

    /** A callin; throwing from the snippet answers {@code err}. Throws for a duplicate symbol. */
    public LearningPurpose<T> callin(String symbol, Callin<T> snippet) {
        declare(symbol);
        callins.put(symbol, snippet);
        order.add(symbol);
        return this;
    }

    /**
     * A callin of a Mealy device: the snippet returns the output it answers ({@code null}, "" or "ok":
     * ok; another name, e.g. "CONNACK", that output, learned when first answered); throwing answers
     * {@code err}. Makes the purpose a Mealy one (device/PROTOCOL.md, "Mealy devices").
     */
    public LearningPurpose<T> callinAnswering(String symbol, AnsweringCallin<T> snippet) {
        declare(symbol);
        Objects.requireNonNull(snippet);
        answering.put(symbol, snippet);
        callins.put(symbol, instance -> snippet.run(instance));
        order.add(symbol);
        mealy = true;
        return this;
    }

    /** Declares named callin outputs up front (a Mealy device; others are learned when answered). */
    public LearningPurpose<T> outputs(String... names) {
        outputs.addAll(List.of(names));
        mealy = true;
        return this;
    }

    /** No {@code wait} input: a device without callbacks (a protocol implementation answering at once). */
    public LearningPurpose<T> noWait() {
        hasWait = false;
        mealy = true;
        return this;
    }

    /** {@code err} is an output like any other: a session goes on after a refused callin. */
    public LearningPurpose<T> errNotAbsorbing() {
        errAbsorbing = false;
        mealy = true;
        return this;
    }

    /**
     * One parameter of a parameterised callin: its name ([A-Za-z_][A-Za-z0-9_]*) and its type, one of
     * spec format v2's {@code int, id, object, bytes, string, bool}.
     */
    public record Parameter(String name, String type) {}

    /** {@code new Parameter(name, type)}. */
    public static Parameter param(String name, String type) {
        return new Parameter(name, type);
    }

    /**
     * A parameterised callin {@code symbol(parameters...)}: {@code snippet} runs it with one printed
     * argument tuple. Give it partitions with {@link #partition}. Throws IllegalArgumentException for
     * a duplicate symbol.
     */
    public LearningPurpose<T> callinWith(String symbol, List<Parameter> signature, ParameterisedCallin<T> snippet) {
        declare(symbol);
        parameterised.put(symbol, new Parameterised<>(List.copyOf(signature), snippet, new ArrayList<>()));
        order.add(symbol);
        return this;
    }

    /**
     * A partition of the parameterised callin {@code symbol}: the abstract input {@code symbol[name]},
     * its guard in words (for the spec), and the generator of its concrete values. Throws
     * IllegalArgumentException when {@code symbol} is not a parameterised callin.
     */
    public LearningPurpose<T> partition(String symbol, String partition, String guard, Values values) {
        Parameterised<T> p = parameterised.get(symbol);
        if (p == null)
            throw new IllegalArgumentException("class '" + name + "': partition '" + partition + "' of '" + symbol
                    + "', which is not a parameterised callin (declare it with callinWith)");
        p.partitions.add(new PartitionDecl(partition, guard, Objects.requireNonNull(values)));
        return this;
    }

    /**
     * The seed and the number of values per partition for the value generators (default 1 and 4;
     * fixed representatives ignore both). Throws IllegalArgumentException for a count below 1.
     */
    public LearningPurpose<T> parameterValues(long seed, int perPartition) {
        if (perPartition < 1) throw new IllegalArgumentException("class '" + name + "': values per partition must be at least 1");
        this.parameterSeed = seed;
        this.valuesPerPartition = perPartition;
        return this;
    }

    /**
     * Marks the plain callin {@code symbol} as performed by the peer, not the client (spec
     * {@code role: environment}; /v1/status {@code environment}): learning drives it like any callin,
     * the Monitor takes it as an observed event. Throws IllegalArgumentException when {@code symbol}
     * is not a plain callin declared before (a parameterised callin cannot have the role yet).
     */
    public LearningPurpose<T> environment(String symbol) {
        if (!callins.containsKey(symbol))
            throw new IllegalArgumentException("class '" + name + "': environment: '" + symbol + "' is not a callin declared before"
                    + (parameterised.containsKey(symbol) ? " without parameters (parameterised callins cannot have the role yet)" : ""));
        if (!environment.contains(symbol)) environment.add(symbol);
        return this;
    }

    /** A callback symbol emitted under its own name. */
    public LearningPurpose<T> callback(String symbol) {
        return mergedCallback(symbol);
    }

    /** A callback symbol standing for several raw callbacks (DroidStar §5.3, merged outputs). */
    public LearningPurpose<T> mergedCallback(String symbol, String... sources) {
        declare(symbol);
        callbacks.put(symbol, List.of(sources));
        return this;
    }

    /** Quiescence timing: {@code wait} answers quiet after tmax ms; callbacks sooner than tmin ms after a callin are a violation. */
    public LearningPurpose<T> timing(long tmaxMs, long tminMs) {
        this.tmaxMs = tmaxMs;
        this.tminMs = tminMs;
        return this;
    }

    /**
     * Declares that a {@code wait} answered {@code quiet} leaves the state unchanged, so clients may
     * skip a second {@code wait} (DroidStar §4.1). Default: not declared (a quiet wait may change the
     * state, e.g. a timer that expires silently). Declare it only when it is true.
     */
    public LearningPurpose<T> quietIsStable() {
        this.quietIsStable = true;
        return this;
    }

    /**
     * The learning purpose "callbacks drained" (the C++ targets' {@code callbacks_drained}): a callin
     * while a callback that already arrived is undelivered answers {@code err} (outside the purpose)
     * without running. Use it when callins deliver callbacks synchronously (inside the call, or
     * waited for by the snippet): without it the next callin would meet a queued callback, a tmin
     * violation. In the learned typestate, such an {@code err} means "deliver the callback first".
     */
    public LearningPurpose<T> callbacksDrained() {
        this.callbacksDrained = true;
        return this;
    }

    /** Restricts the explored words (see {@link PurposeFilter}); several calls combine with "and". */
    public LearningPurpose<T> restrictTo(PurposeFilter f) {
        this.filter = filter == null ? f : filter.and(f);
        return this;
    }

    /** The class name. */
    public String name() {
        return name;
    }

    /**
     * Throws IllegalArgumentException naming the problem: no name or reset snippet, no callin, an
     * empty or reserved symbol, a callback source used twice, negative timing, tmin &gt; tmax; for a
     * parameterised callin: a name with '/', a parameter name that is not an identifier or is
     * repeated, a type spec format v2 does not know, no partition, a
     * partition name outside [A-Za-z0-9_.=&lt;&gt;!-]+ or used twice, a partition without values, a
     * value in two partitions, or a concrete input {@code callin/vK} that is also a declared symbol.
     * Then builds the device inputs (deterministically, from the seed and count of
     * {@link #parameterValues}).
     */
    public void validate() {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("class definition without a name");
        if (reset == null) bad("no reset snippet");
        if (order.isEmpty()) bad("no callin");
        Set<String> sources = new HashSet<>();
        for (var c : callins.entrySet()) {
            checkSymbol(c.getKey(), "callin");
            if (c.getValue() == null) bad("callin '" + c.getKey() + "' has no snippet");
        }
        expand();
        for (var cb : callbacks.entrySet()) {
            checkSymbol(cb.getKey(), "callback");
            List<String> own = cb.getValue().isEmpty() ? List.of(cb.getKey()) : cb.getValue();
            for (String s : own)
                if (!sources.add(s)) bad("callback source '" + s + "' is used twice");
        }
        Set<String> named = new HashSet<>();
        for (String o : outputs) {
            if (o == null || o.isEmpty() || (RESERVED.contains(o) && !(o.equals("err") && !errAbsorbing))
                    || callbacks.containsKey(o))
                bad("output '" + o + "' is empty, reserved or a callback's name");
            if (!named.add(o)) bad("output '" + o + "' declared twice");
        }
        if (!hasWait && !callbacks.isEmpty()) bad("noWait() with callbacks: callbacks arrive on wait");
        if (tmaxMs < 0 || tminMs < 0) bad("negative timing");
        if (tminMs > tmaxMs) bad("tmin is larger than tmax");
    }

    /** Raw callback name -> output symbol. */
    Map<String, String> sourceMap() {
        Map<String, String> m = new LinkedHashMap<>();
        for (var cb : callbacks.entrySet()) {
            if (cb.getValue().isEmpty()) m.put(cb.getKey(), cb.getKey());
            else for (String s : cb.getValue()) m.put(s, cb.getKey());
        }
        return m;
    }

    /** The device inputs but {@code wait}: plain callins and concrete values (after {@link #validate()}). */
    List<String> callinNames() {
        return new ArrayList<>(inputs.keySet());
    }

    private void declare(String symbol) {
        if (callins.containsKey(symbol) || parameterised.containsKey(symbol) || callbacks.containsKey(symbol))
            throw new IllegalArgumentException("class '" + name + "': symbol '" + symbol + "' declared twice");
    }

    /** A parameterised callin as declared. */
    record Parameterised<T>(List<Parameter> signature, ParameterisedCallin<T> snippet, List<PartitionDecl> partitions) {}

    /** A partition as declared. */
    record PartitionDecl(String name, String guard, Values values) {}

    /** One concrete value: the device input that runs the callin with it. */
    record ConcreteValue(String input, String value) {}

    /** A partition with its concrete values. */
    record ExpandedPartition(String name, String guard, List<ConcreteValue> values) {}

    /** A parameterised callin with its concrete values, as /v1/status declares it. */
    record ExpandedCallin(String callin, List<Parameter> signature, List<ExpandedPartition> partitions) {}

    private static boolean hasControl(String s) {
        return s.chars().anyMatch(c -> c < 0x20 || c == 0x7f);
    }

    /** The parameter types of spec format v2 (docs/spec-format-v2.md). */
    static final Set<String> TYPES = Set.of("int", "id", "object", "bytes", "string", "bool");
    private static final Pattern PARAMETER_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern PARTITION_NAME = Pattern.compile("[A-Za-z0-9_.=<>!-]+");

    /** Builds {@link #inputs} and {@link #expanded} from the declarations. */
    private void expand() {
        Map<String, Callin<T>> in = new LinkedHashMap<>();
        List<ExpandedCallin> out = new ArrayList<>();
        int partitionIndex = 0;
        for (String symbol : order) {
            Callin<T> plain = callins.get(symbol);
            if (plain != null) {
                in.put(symbol, plain);
                continue;
            }
            Parameterised<T> p = parameterised.get(symbol);
            checkSymbol(symbol, "callin");
            if (symbol.indexOf('/') >= 0) bad("parameterised callin '" + symbol + "' has a '/' in its name");
            if (p.snippet() == null) bad("callin '" + symbol + "' has no snippet");
            Set<String> parameterNames = new HashSet<>();
            for (Parameter q : p.signature()) {
                if (q == null || q.name() == null || !PARAMETER_NAME.matcher(q.name()).matches())
                    bad("callin '" + symbol + "': a parameter name is [A-Za-z_][A-Za-z0-9_]*");
                if (!parameterNames.add(q.name())) bad("callin '" + symbol + "': parameter '" + q.name() + "' is declared twice");
                if (!TYPES.contains(q.type()))
                    bad("callin '" + symbol + "': parameter '" + q.name() + "' has type '" + q.type()
                            + "', not one of int, id, object, bytes, string, bool");
            }
            if (p.partitions().isEmpty()) bad("parameterised callin '" + symbol + "' has no partition");
            Set<String> names = new HashSet<>();
            Map<String, String> owner = new HashMap<>();
            List<ExpandedPartition> parts = new ArrayList<>();
            int k = 0;
            for (PartitionDecl d : p.partitions()) {
                String where = "callin '" + symbol + "', partition '" + d.name() + "'";
                if (d.name() == null || !PARTITION_NAME.matcher(d.name()).matches())
                    bad(where + ": a partition name is [A-Za-z0-9_.=<>!-]+");
                if (!names.add(d.name())) bad(where + " is declared twice");
                if (d.guard() == null || d.guard().isEmpty() || hasControl(d.guard())) bad(where + ": the guard must be words without control characters");
                // Each partition its own stream of draws, fixed by the seed and its position.
                long seed = parameterSeed * 1_000_003L + partitionIndex++;
                List<String> values = d.values().generate(seed, valuesPerPartition);
                if (values.isEmpty()) bad(where + " has no values");
                List<ConcreteValue> concrete = new ArrayList<>();
                for (String v : values) {
                    if (hasControl(v)) bad(where + ": value '" + v.replaceAll("\\p{Cntrl}", "?") + "' has control characters");
                    String before = owner.putIfAbsent(v, d.name());
                    if (before != null) bad("callin '" + symbol + "': value '" + v + "' is in partitions '" + before
                            + "' and '" + d.name() + "'");
                    String input = symbol + "/v" + k++;
                    if (callins.containsKey(input) || parameterised.containsKey(input) || callbacks.containsKey(input))
                        bad("input '" + input + "' of callin '" + symbol + "' is also a declared symbol");
                    ParameterisedCallin<T> snippet = p.snippet();
                    in.put(input, instance -> snippet.run(instance, v));
                    concrete.add(new ConcreteValue(input, v));
                }
                parts.add(new ExpandedPartition(d.name(), d.guard(), List.copyOf(concrete)));
            }
            out.add(new ExpandedCallin(symbol, p.signature(), List.copyOf(parts)));
        }
        inputs = in;
        expanded = List.copyOf(out);
    }

    List<String> callbackNames() {
        return new ArrayList<>(callbacks.keySet());
    }

    private void checkSymbol(String s, String kind) {
        if (s == null || s.isEmpty()) bad("empty " + kind + " name");
        if (RESERVED.contains(s)) bad("reserved name '" + s + "' used as a " + kind);
    }

    private void bad(String what) {
        throw new IllegalArgumentException("class '" + name + "': " + what);
    }
}
