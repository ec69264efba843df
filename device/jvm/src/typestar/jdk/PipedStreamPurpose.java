package typestar.jdk;

import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;

/**
 * {@code java.io.PipedOutputStream} with a {@code PipedInputStream} sink, PSYCO's example
 * (docs/targets/java_piped.md). Callins: {@code connect}, {@code write} (one byte; the 1024-byte pipe
 * never fills within the learned words), {@code flush}, {@code close} (the output stream). No callbacks.
 */
public final class PipedStreamPurpose implements PurposeProvider {
    /** The stream under learning and its sink. */
    public static final class Pipe {
        final PipedOutputStream out = new PipedOutputStream();
        final PipedInputStream in = new PipedInputStream();
    }

    @Override
    public LearningPurpose<?> purpose() {
        return LearningPurpose.of("java.io.PipedOutputStream", Pipe.class)
                .framework("jdk-" + Runtime.version().feature())
                .reset(sink -> new Pipe())
                .teardown(p -> {
                    p.out.close();
                    p.in.close();
                })
                .callin("close", p -> p.out.close())
                .callin("connect", p -> p.out.connect(p.in))
                .callin("flush", p -> p.out.flush())
                .callin("write", p -> p.out.write(42))
                .timing(10, 0)
                .quietIsStable();
    }
}
