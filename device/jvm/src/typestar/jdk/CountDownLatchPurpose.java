package typestar.jdk;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;

/**
 * {@code java.util.concurrent.CountDownLatch} with a count of 2 as a Mealy device (device/PROTOCOL.md,
 * "Mealy devices"): no callbacks, so no {@code wait}; {@code getCount} answers the count ("2", "1",
 * "0") and {@code tryAwait} ({@code await(0, ms)}) answers "true" or "false", outputs learned as
 * they are first answered; {@code countDown} answers ok.
 */
public final class CountDownLatchPurpose implements PurposeProvider {
    @Override
    public LearningPurpose<?> purpose() {
        return LearningPurpose.of("java.util.concurrent.CountDownLatch", CountDownLatch.class)
                .framework("java-" + System.getProperty("java.specification.version"))
                .reset(sink -> new CountDownLatch(2))
                .callinAnswering("countDown", latch -> {
                    latch.countDown();
                    return "ok";
                })
                .callinAnswering("getCount", latch -> Long.toString(latch.getCount()))
                .callinAnswering("tryAwait", latch -> Boolean.toString(latch.await(0, TimeUnit.MILLISECONDS)))
                .outputs("true", "false")
                .noWait()
                .timing(10, 0);
    }
}
