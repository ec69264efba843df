package typestar.jdk;

import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;

/** {@code java.util.concurrent.FutureTask} run by an executor, behind the alphabet of {@link CompletableFuturePurpose}. */
public final class FutureTaskPurpose implements PurposeProvider {
    @Override
    public LearningPurpose<?> purpose() {
        return Futures.purpose("java.util.concurrent.Future", Futures::futureTask);
    }
}
