package typestar.jdk;

import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;

/** {@code java.util.concurrent.CompletableFuture} completed by a computation on an executor (see {@link Futures}). */
public final class CompletableFuturePurpose implements PurposeProvider {
    @Override
    public LearningPurpose<?> purpose() {
        return Futures.purpose("java.util.concurrent.Future", Futures::completable);
    }
}
