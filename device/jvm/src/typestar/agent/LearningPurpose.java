package typestar.agent;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

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
    final Map<String, Callin<T>> callins = new LinkedHashMap<>();
    /** callback symbol -> raw source names (the symbol itself when empty). */
    final Map<String, List<String>> callbacks = new LinkedHashMap<>();
    long tmaxMs = 200;
    long tminMs = 0;
    boolean quietIsStable = false;
    boolean callbacksDrained = false;
    PurposeFilter filter;

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
        if (callins.containsKey(symbol) || callbacks.containsKey(symbol))
            throw new IllegalArgumentException("class '" + name + "': symbol '" + symbol + "' declared twice");
        callins.put(symbol, snippet);
        return this;
    }

    /** A callback symbol emitted under its own name. */
    public LearningPurpose<T> callback(String symbol) {
        return mergedCallback(symbol);
    }

    /** A callback symbol standing for several raw callbacks (DroidStar §5.3, merged outputs). */
    public LearningPurpose<T> mergedCallback(String symbol, String... sources) {
        if (callins.containsKey(symbol) || callbacks.containsKey(symbol))
            throw new IllegalArgumentException("class '" + name + "': symbol '" + symbol + "' declared twice");
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
     * empty or reserved symbol, a callback source used twice, negative timing, tmin &gt; tmax.
     */
    public void validate() {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("class definition without a name");
        if (reset == null) bad("no reset snippet");
        if (callins.isEmpty()) bad("no callin");
        Set<String> sources = new HashSet<>();
        for (var c : callins.entrySet()) {
            checkSymbol(c.getKey(), "callin");
            if (c.getValue() == null) bad("callin '" + c.getKey() + "' has no snippet");
        }
        for (var cb : callbacks.entrySet()) {
            checkSymbol(cb.getKey(), "callback");
            List<String> own = cb.getValue().isEmpty() ? List.of(cb.getKey()) : cb.getValue();
            for (String s : own)
                if (!sources.add(s)) bad("callback source '" + s + "' is used twice");
        }
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

    List<String> callinNames() {
        return new ArrayList<>(callins.keySet());
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
