package typestar.testing;

import java.util.Comparator;
import typestar.agent.DataPurpose;
import typestar.agent.DataPurposeProvider;
import typestar.jdk.PriorityQueuePurpose;

/**
 * A mutant for tests/jvm: {@link PriorityQueuePurpose} with {@code Comparator.reverseOrder()}, so
 * {@code poll} answers the largest value held. The committed min-queue spec must fail against it
 * (and its own spec against the min-queue), with a data trace.
 */
public final class MaxPriorityQueuePurpose implements DataPurposeProvider {
    @Override
    public DataPurpose<?> dataPurpose() {
        return PriorityQueuePurpose.purpose(Comparator.reverseOrder());
    }
}
