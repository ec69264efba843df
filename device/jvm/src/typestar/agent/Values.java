package typestar.agent;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Concrete argument values of one partition of a parameterised callin (PSYCO §3; the Java mirror of
 * the C++ {@code typestar::ValueGenerator}): printed strings that the callin's snippet parses.
 * Deterministic: the same seed and count give the same values in the same order, on every JVM
 * (draws come from {@link SplittableRandom}, whose sequence is specified).
 */
public final class Values {
    /** Values for a seed; at most {@code count} of them, no duplicates. */
    @FunctionalInterface
    interface Generator {
        List<String> generate(long seed, int count);
    }

    private final Generator generator;
    private final String description;

    private Values(Generator generator, String description) {
        this.generator = generator;
        this.description = description;
    }

    /** These representatives, all of them, in this order (seed and count are ignored). */
    public static Values fixed(String... values) {
        List<String> list = List.of(values);  // throws NullPointerException for a null value
        return new Values((seed, count) -> list, "fixed " + list.size());
    }

    /**
     * Integers of [lo, hi]: both ends first, then seeded draws from inside, up to {@code count}
     * distinct values. Throws IllegalArgumentException when lo &gt; hi.
     */
    public static Values range(long lo, long hi) {
        if (lo > hi) throw new IllegalArgumentException("range [" + lo + ", " + hi + "] is empty");
        return new Values((seed, count) -> {
            LinkedHashSet<String> out = new LinkedHashSet<>();
            if (count >= 1) out.add(Long.toString(lo));
            if (count >= 2) out.add(Long.toString(hi));
            // hi - lo + 1 may overflow: then every long is in range, so nextLong() is a fair draw.
            long span = hi - lo + 1;
            long size = span <= 0 ? Long.MAX_VALUE : span;
            SplittableRandom r = new SplittableRandom(seed);
            for (int tries = 0; out.size() < Math.min(count, size) && tries < 64 * count; ++tries)
                out.add(Long.toString(span <= 0 ? r.nextLong() : lo + r.nextLong(span)));
            return new ArrayList<>(out);
        }, "range [" + lo + ", " + hi + "]");
    }

    /** {@code count} draws of {@code draw} from a generator seeded with the seed, duplicates dropped. */
    public static Values sampler(Function<SplittableRandom, String> draw, String description) {
        Objects.requireNonNull(draw);
        return new Values((seed, count) -> {
            SplittableRandom r = new SplittableRandom(seed);
            LinkedHashSet<String> out = new LinkedHashSet<>();
            for (int i = 0; i < count; ++i) out.add(Objects.requireNonNull(draw.apply(r), "the sampler drew null"));
            return new ArrayList<>(out);
        }, Objects.requireNonNull(description));
    }

    /** E.g. "fixed 3", "range [-5, 5]". */
    public String description() {
        return description;
    }

    /** The values for {@code seed}, at most {@code count} (fixed representatives: all of them). */
    List<String> generate(long seed, int count) {
        return List.copyOf(generator.generate(seed, count));
    }
}
