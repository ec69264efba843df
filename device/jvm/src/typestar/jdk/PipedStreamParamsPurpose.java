package typestar.jdk;

import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.List;
import typestar.agent.HarnessFailure;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;
import typestar.agent.Values;

/**
 * {@code java.io.PipedOutputStream} with parameters, PSYCO's motivating example
 * (docs/targets/java_piped_params.md). Like PSYCO, every method starts as one abstract input (one
 * partition {@code any}, guard {@code true}); alphabet refinement has to find the splits by itself.
 * Callins: {@code connect(snk)} with a null sink, a fresh unconnected sink, or a sink already
 * connected to another stream; {@code write(new byte[16], 0, len)} with {@code len} from [0, 16]
 * (both ends and seeded draws; the 1024-byte pipe never fills within the learned words; nothing reads); {@code flush}; {@code close}.
 * No callbacks.
 */
public final class PipedStreamParamsPurpose implements PurposeProvider {
    /** The stream under learning. Sinks are made per call (a fresh one each time). */
    public static final class Pipe {
        final PipedOutputStream out = new PipedOutputStream();
        /** Streams made by connect's values, closed at tear-down. */
        final java.util.List<java.io.Closeable> made = new java.util.ArrayList<>();
    }

    private static PipedInputStream sink(Pipe p, String value) throws IOException {
        switch (value) {
            case "null":
                return null;
            case "fresh sink": {
                PipedInputStream in = new PipedInputStream();
                p.made.add(in);
                return in;
            }
            case "connected sink": {
                PipedInputStream in = new PipedInputStream();
                PipedOutputStream other = new PipedOutputStream(in);  // connects `in` to another stream
                p.made.add(in);
                p.made.add(other);
                return in;
            }
            default:
                throw new HarnessFailure("connect: no sink '" + value + "'");
        }
    }

    @Override
    public LearningPurpose<?> purpose() {
        return LearningPurpose.of("java.io.PipedOutputStream", Pipe.class)
                .framework("jdk-" + Runtime.version().feature())
                .reset(sink -> new Pipe())
                .teardown(p -> {
                    p.out.close();
                    for (java.io.Closeable c : p.made) c.close();
                })
                .callin("close", p -> p.out.close())
                .callinWith("connect", List.of(LearningPurpose.param("snk", "object")),
                        (p, v) -> p.out.connect(sink(p, v)))
                .partition("connect", "any", "true", Values.fixed("null", "fresh sink", "connected sink"))
                .callin("flush", p -> p.out.flush())
                .callinWith("write", List.of(LearningPurpose.param("len", "int")),
                        (p, v) -> p.out.write(new byte[16], 0, Integer.parseInt(v)))
                .partition("write", "any", "true", Values.range(0, 16))
                .timing(10, 0)
                .quietIsStable();
    }
}
