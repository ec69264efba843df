package typestar.agent;

/**
 * One executed step of the current session, as a learning-purpose filter sees it.
 *
 * @param input a callin name or {@code wait}
 * @param output {@code ok}, {@code err}, {@code quiet} or a callback symbol
 */
public record StepRecord(String input, String output) {}
