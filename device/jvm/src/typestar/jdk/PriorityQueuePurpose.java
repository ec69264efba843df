package typestar.jdk;

import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import typestar.agent.DataPurpose;
import typestar.agent.DataPurpose.Answer;
import typestar.agent.DataPurposeProvider;

/**
 * {@code java.util.PriorityQueue<Integer>} bounded to {@value #CAPACITY} elements, SL*'s own
 * example (docs/targets/java_priority_queue.md), learned as a register automaton through the data
 * fields of /v1. The same shape as the C++ target (tests/support/data_purposes.hpp,
 * specs/ra/std_priority_queue.yaml): {@code offer(p)} answers {@code ok}, or {@code full} when
 * {@value #CAPACITY} values are held (the bound is the purpose's: the JDK queue is unbounded);
 * {@code poll()} is {@code remove()}, answering {@code out(v)} with the head (the minimum), and the
 * {@code NoSuchElementException} of an empty queue is the refusal {@code empty}.
 */
public final class PriorityQueuePurpose implements DataPurposeProvider {
    /** The bound (SL*'s pq3 and the C++ target hold 3). */
    public static final int CAPACITY = 3;

    @Override
    public DataPurpose<?> dataPurpose() {
        return purpose(null);
    }

    /**
     * The purpose over queues ordered by {@code order} (null: natural order, the min-queue; the
     * max-queue with {@code Comparator.reverseOrder()} is the mutant of tests/jvm).
     */
    public static DataPurpose<PriorityQueue<Long>> purpose(Comparator<Long> order) {
        return DataPurpose.<PriorityQueue<Long>>of("java.util.PriorityQueue", () -> new PriorityQueue<>(order))
                .framework("jdk-" + Runtime.version().feature())
                .callin("offer", List.of("p"), (q, v) -> {
                    if (q.size() >= CAPACITY) return Answer.of("full");
                    return q.offer(v[0]) ? Answer.of("ok") : Answer.of("full");
                })
                .callin("poll", List.of(), (q, v) -> Answer.of("out", q.remove()))
                .output("ok")
                .output("full")
                .output("empty")
                .output("out", "v")
                .refusedAs("empty", NoSuchElementException.class);
    }
}
