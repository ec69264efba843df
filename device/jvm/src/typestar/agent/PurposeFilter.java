package typestar.agent;

import java.util.List;
import java.util.Set;

/**
 * A learning purpose (DroidStar §5.3): whether {@code next} (a callin or {@code wait}) may be
 * explored after {@code history}. A denied input is answered {@code err} without running anything,
 * so the learned typestate is the class restricted to the purpose; there, {@code err} means
 * "refused by the class or outside the purpose". Must be a pure function of its arguments.
 */
@FunctionalInterface
public interface PurposeFilter {
    /** True when {@code next} may run after {@code history}. */
    boolean allows(List<StepRecord> history, String next);

    /** Both filters allow the input. */
    default PurposeFilter and(PurposeFilter other) {
        return (history, next) -> allows(history, next) && other.allows(history, next);
    }

    /**
     * At most {@code limit} pending requests (DroidStar §5.3, SpellCheckerSession): an input in
     * {@code requests} answered {@code ok} opens a request, an output in {@code responses} closes
     * one; a request while {@code limit} are open is denied. Mirrors the C++ {@code at_most_pending}.
     */
    static PurposeFilter atMostPending(Set<String> requests, Set<String> responses, int limit) {
        return (history, next) -> {
            if (!requests.contains(next)) return true;
            int pending = 0;
            for (StepRecord step : history) {
                if (requests.contains(step.input()) && step.output().equals("ok")) ++pending;
                if (responses.contains(step.output()) && pending > 0) --pending;
            }
            return pending < limit;
        };
    }
}
