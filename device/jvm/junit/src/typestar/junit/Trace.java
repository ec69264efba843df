package typestar.junit;

import java.util.ArrayList;
import java.util.List;

/** The aligned trace of the CLI and the GoogleTest plugin (session's format_trace). */
final class Trace {
    static String format(List<String> states, List<String> inputs, List<String> expected, List<String> actual, int indent) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"step", "state", "input", "expected", "actual"});
        for (int i = 0; i < inputs.size(); ++i)
            rows.add(new String[] {String.valueOf(i + 1), i < states.size() ? states.get(i) : "?", inputs.get(i),
                    i < expected.size() ? expected.get(i) : "", i < actual.size() ? actual.get(i) : ""});
        int[] width = new int[5];
        for (String[] row : rows)
            for (int c = 0; c < 5; ++c) width[c] = Math.max(width[c], row[c].length());
        boolean marked = false;
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows.size(); ++r) {
            StringBuilder line = new StringBuilder(" ".repeat(indent));
            for (int c = 0; c < 5; ++c) {
                line.append(rows.get(r)[c]);
                if (c + 1 < 5) line.append(" ".repeat(width[c] - rows.get(r)[c].length() + 2));
            }
            if (r > 0 && !marked && !rows.get(r)[3].equals(rows.get(r)[4])) {
                line.append(" ".repeat(width[4] - rows.get(r)[4].length())).append("  <- differs");
                marked = true;
            }
            int end = line.length();
            while (end > 0 && line.charAt(end - 1) == ' ') --end;
            out.append(line, 0, end).append('\n');
        }
        return out.toString();
    }
}
