package typestar.testing;

import java.util.List;
import java.util.NoSuchElementException;
import typestar.agent.DataPurpose;
import typestar.agent.DataPurpose.Answer;
import typestar.agent.DataPurposeProvider;

/**
 * A probe data device for tests/jvm/data_test.cpp: {@code echo(x, y)} answers {@code out(y, x)};
 * {@code refuse} throws a declared refusal ({@code no}); {@code boom} an undeclared exception,
 * {@code stray} an undeclared output, {@code short} an output with too few values (each a
 * {@code device error}); one constant, {@code zero}, declared in the status's signature.
 */
public final class DataProbePurpose implements DataPurposeProvider {
    @Override
    public DataPurpose<?> dataPurpose() {
        return DataPurpose.<StringBuilder>of("typestar.testing.DataProbe", StringBuilder::new)
                .framework("probe")
                .callin("echo", List.of("x", "y"), (b, v) -> Answer.of("out", v[1], v[0]))
                .callin("refuse", List.of(), (b, v) -> {
                    throw new NoSuchElementException("nothing");
                })
                .callin("boom", List.of(), (b, v) -> {
                    throw new IllegalStateException("kaput");
                })
                .callin("stray", List.of(), (b, v) -> Answer.of("zzz"))
                .callin("short", List.of(), (b, v) -> Answer.of("out", 1))
                .output("out", "a", "b")
                .output("no")
                .constant("zero", 0)
                .refusedAs("no", NoSuchElementException.class);
    }

    /** Invalid: {@code refusedAs} names an output with parameters (the agent refuses to start). */
    public static final class Invalid implements DataPurposeProvider {
        @Override
        public DataPurpose<?> dataPurpose() {
            return DataPurpose.<StringBuilder>of("typestar.testing.InvalidDataProbe", StringBuilder::new)
                    .callin("echo", List.of("x"), (b, v) -> Answer.of("out", v[0]))
                    .output("out", "a")
                    .refusedAs("out", IllegalStateException.class);
        }
    }
}
