package typestar.agent;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The learning purpose of a <em>data device</em> (device/PROTOCOL.md, "Data devices"):
 * a class whose callins take integer values and whose outputs carry integer values, learned as a
 * register automaton. The Java counterpart of the C++ {@code typestar::DataPurpose}: a reset
 * snippet making a fresh instance, callins with {@code int} parameters returning a {@link Answer},
 * declared outputs, and optionally the output that answers a callin refused with an exception.
 * Data devices are synchronous: no callbacks, no {@code wait}, every callin answers one output.
 *
 * <pre>
 * DataPurpose.of("java.util.PriorityQueue", PriorityQueue::new)
 *     .callin("offer", List.of("p"), (q, v) -&gt; ...)
 *     .output("ok").output("out", "v")
 *     .refusedAs("empty", NoSuchElementException.class);
 * </pre>
 *
 * @param <T> the class under learning
 */
public final class DataPurpose<T> {
    /** Makes a fresh instance; may throw (a failing reset: {@code session not created}). */
    @FunctionalInterface
    public interface Reset<T> {
        T make() throws Exception;
    }

    /** A callin: the instance and one value per declared parameter; returns the output. */
    @FunctionalInterface
    public interface Body<T> {
        Answer call(T instance, long[] values) throws Exception;
    }

    /** One output with its values (as many as the output declares parameters). */
    public record Answer(String output, long[] values) {
        /** An output without values. */
        public static Answer of(String output) {
            return new Answer(output, new long[0]);
        }

        /** An output with values. */
        public static Answer of(String output, long... values) {
            return new Answer(output, values.clone());
        }
    }

    /** A declared input or output: its name and the names of its {@code int} parameters. */
    public record Symbol(String name, List<String> parameters) {}

    record CallinDef<T>(Symbol symbol, Body<T> body) {}

    final String name;
    final Reset<T> reset;
    String framework = "";
    final Map<String, CallinDef<T>> callins = new LinkedHashMap<>();
    final Map<String, Symbol> outputs = new LinkedHashMap<>();
    final Map<String, Long> constants = new LinkedHashMap<>();
    String refused = "";
    final List<Class<? extends Throwable>> refusedBy = new ArrayList<>();

    private DataPurpose(String name, Reset<T> reset) {
        this.name = name;
        this.reset = reset;
    }

    /** A purpose for the class called {@code name}, whose instances {@code reset} makes. */
    public static <T> DataPurpose<T> of(String name, Reset<T> reset) {
        return new DataPurpose<>(name, reset);
    }

    /** The framework version reported in /v1/status (provenance). */
    public DataPurpose<T> framework(String version) {
        this.framework = version;
        return this;
    }

    /** A callin with {@code int} parameters named {@code parameters}. Throws IllegalArgumentException when declared twice. */
    public DataPurpose<T> callin(String callin, List<String> parameters, Body<T> body) {
        if (callins.containsKey(callin)) throw new IllegalArgumentException("data purpose: callin '" + callin + "' declared twice");
        callins.put(callin, new CallinDef<>(new Symbol(callin, List.copyOf(parameters)), body));
        return this;
    }

    /** An output (a callin's return) with {@code int} parameters. Throws IllegalArgumentException when declared twice. */
    public DataPurpose<T> output(String output, String... parameters) {
        if (outputs.containsKey(output)) throw new IllegalArgumentException("data purpose: output '" + output + "' declared twice");
        outputs.put(output, new Symbol(output, List.of(parameters)));
        return this;
    }

    /**
     * A constant the class compares data with ({@code Thread.setPriority} refuses a priority below
     * {@code Thread.MIN_PRIORITY}): guards and outputs of the learned automaton may name it. Without
     * it such a comparison is outside what a register automaton over the signature can say, and
     * typestar's suites refuse a verdict on the class. Throws IllegalArgumentException when declared twice.
     */
    public DataPurpose<T> constant(String name, long value) {
        if (constants.containsKey(name)) throw new IllegalArgumentException("data purpose: constant '" + name + "' declared twice");
        constants.put(name, value);
        return this;
    }

    /**
     * The output (declared, without parameters) answering a callin that throws one of
     * {@code exceptions} (or a subclass); any other exception is a device error naming the callin.
     */
    @SafeVarargs
    public final DataPurpose<T> refusedAs(String output, Class<? extends Throwable>... exceptions) {
        this.refused = output;
        this.refusedBy.clear();
        for (Class<? extends Throwable> e : exceptions) this.refusedBy.add(e);
        return this;
    }

    /** The class name. */
    public String name() {
        return name;
    }

    /**
     * Throws IllegalArgumentException naming the problem: no name or reset, no callin, no output,
     * an empty or duplicate parameter name, {@code refusedAs} naming an undeclared output, one with
     * parameters, or no exception class.
     */
    public void validate() {
        String who = "data purpose '" + name + "'";
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("data purpose: empty name");
        if (reset == null) throw new IllegalArgumentException(who + ": no reset");
        if (callins.isEmpty()) throw new IllegalArgumentException(who + ": no callin");
        if (outputs.isEmpty()) throw new IllegalArgumentException(who + ": no output");
        List<Symbol> all = new ArrayList<>();
        callins.values().forEach(c -> all.add(c.symbol()));
        all.addAll(outputs.values());
        for (Symbol s : all) {
            if (s.name().isEmpty()) throw new IllegalArgumentException(who + ": a symbol with an empty name");
            Set<String> seen = new HashSet<>();
            for (String p : s.parameters())
                if (p == null || p.isEmpty() || !seen.add(p))
                    throw new IllegalArgumentException(who + ": '" + s.name() + "' has an empty or repeated parameter name");
        }
        for (CallinDef<T> c : callins.values())
            if (c.body() == null) throw new IllegalArgumentException(who + ": callin '" + c.symbol().name() + "' has no body");
        for (String c : constants.keySet())
            if (c == null || c.isEmpty()) throw new IllegalArgumentException(who + ": a constant with an empty name");
        if (!refused.isEmpty()) {
            Symbol r = outputs.get(refused);
            if (r == null) throw new IllegalArgumentException(who + ": refusedAs names undeclared output '" + refused + "'");
            if (!r.parameters().isEmpty())
                throw new IllegalArgumentException(who + ": refusedAs output '" + refused + "' has parameters");
            if (refusedBy.isEmpty()) throw new IllegalArgumentException(who + ": refusedAs '" + refused + "' names no exception class");
        }
    }

    /** One instance of the class (one session's, or one /v1/run's). Not thread-safe. */
    final class Instance {
        private T object;

        /** A fresh instance. Throws DeviceException when the reset throws or returns null. */
        void reset() throws DeviceException {
            try {
                object = DataPurpose.this.reset.make();
            } catch (Exception | LinkageError e) {
                object = null;
                throw new DeviceException("the reset snippet failed: " + Runner.describe(e));
            }
            if (object == null) throw new DeviceException("the reset snippet returned null");
        }

        /**
         * Runs {@code callin} (declared; the caller checked the number of values). Throws
         * DeviceException for an undeclared output, an output with the wrong number of values, or
         * an exception that is not a declared refusal: never a guessed answer.
         */
        Answer step(String callin, long[] values) throws DeviceException {
            CallinDef<T> c = callins.get(callin);
            if (object == null) throw new DeviceException("no instance (the reset failed)");
            Answer a;
            try {
                a = c.body().call(object, values.clone());
            } catch (Exception | LinkageError e) {
                for (Class<? extends Throwable> k : refusedBy)
                    if (k.isInstance(e)) return Answer.of(refused);
                throw new DeviceException("callin '" + callin + "' threw " + Runner.describe(e)
                        + (refused.isEmpty() ? " (the purpose declares no refusedAs)" : " (not a declared refusal)"));
            }
            if (a == null || a.output() == null) throw new DeviceException("callin '" + callin + "' answered no output");
            Symbol out = outputs.get(a.output());
            if (out == null) throw new DeviceException("callin '" + callin + "' answered undeclared output '" + a.output() + "'");
            int n = a.values() == null ? 0 : a.values().length;
            if (n != out.parameters().size())
                throw new DeviceException("callin '" + callin + "' answered '" + a.output() + "' with " + n + " values, declared "
                        + out.parameters().size());
            return a.values() == null ? Answer.of(a.output()) : a;
        }

        void finish() {
            object = null;
        }
    }

    /** The number of parameters of {@code callin}, or -1 when it is not declared. */
    int arity(String callin) {
        CallinDef<T> c = callins.get(callin);
        return c == null ? -1 : c.symbol().parameters().size();
    }
}
