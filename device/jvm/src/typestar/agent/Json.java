package typestar.agent;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import java.io.IOException;
import java.io.StringReader;
import java.util.Map;
import java.util.TreeMap;

/** JSON with Gson (Debian's libgoogle-gson-java): strict parsing, keys written sorted like the C++ agent. */
final class Json {
    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();

    private Json() {}

    /** The deepest nesting a request body may have (device/PROTOCOL.md; the top-level object is level 1). */
    static final int MAX_DEPTH = 64;

    /** Whether {@code text} opens more than {@link #MAX_DEPTH} arrays or objects at once, counted without recursion. */
    static boolean tooDeep(String text) {
        int depth = 0;
        boolean inString = false;
        for (int i = 0; i < text.length(); ++i) {
            char c = text.charAt(i);
            if (inString) {
                if (c == '\\') ++i;
                else if (c == '"') inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '[' || c == '{') {
                if (++depth > MAX_DEPTH) return true;
            } else if (c == ']' || c == '}') {
                --depth;
            }
        }
        return false;
    }

    /** At most 128 characters of {@code text} (then "..."), control characters escaped: for echoing input in a message. */
    static String excerpt(String text) {
        String cut = text.length() > 128 ? text.substring(0, 128) : text;
        StringBuilder b = new StringBuilder(cut.length() + 3);
        for (int i = 0; i < cut.length(); ++i) {
            char c = cut.charAt(i);
            if (c < 0x20 || c == 0x7f) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        if (cut.length() < text.length()) b.append("...");
        return b.toString();
    }

    /** Parses a strict JSON document; null when it is not valid JSON (or has trailing content). Check {@link #tooDeep} first. */
    static JsonElement parse(String text) {
        try (JsonReader reader = new JsonReader(new StringReader(text))) {
            reader.setLenient(false);
            JsonElement e = GSON.getAdapter(JsonElement.class).read(reader);
            if (reader.peek() != JsonToken.END_DOCUMENT) return null;
            return e;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Serialises with object keys sorted (byte-identical to nlohmann::json::dump for the same values). */
    static String dump(JsonElement e) {
        return GSON.toJson(sorted(e));
    }

    private static JsonElement sorted(JsonElement e) {
        if (e.isJsonObject()) {
            Map<String, JsonElement> m = new TreeMap<>();
            for (var entry : e.getAsJsonObject().entrySet()) m.put(entry.getKey(), sorted(entry.getValue()));
            JsonObject o = new JsonObject();
            m.forEach(o::add);
            return o;
        }
        if (e.isJsonArray()) {
            JsonArray a = new JsonArray();
            for (JsonElement x : e.getAsJsonArray()) a.add(sorted(x));
            return a;
        }
        return e;
    }

    /** A non-negative integer written without sign, fraction or exponent; else -1. */
    static long unsigned(JsonElement e) {
        if (e == null || !e.isJsonPrimitive() || !((JsonPrimitive) e).isNumber()) return -1;
        String s = e.getAsString();
        if (s.isEmpty() || s.length() > 18 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) return -1;
        return Long.parseLong(s);
    }

    /** An integer written without fraction or exponent that fits 64 bits; else null. */
    static Long integer(JsonElement e) {
        if (e == null || !e.isJsonPrimitive() || !((JsonPrimitive) e).isNumber()) return null;
        String s = e.getAsString();
        if (!s.matches("-?(0|[1-9][0-9]*)")) return null;
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException x) {
            return null;
        }
    }

    /** A JSON string's value, or null when {@code e} is not a string. */
    static String string(JsonElement e) {
        if (e == null || !e.isJsonPrimitive() || !((JsonPrimitive) e).isString()) return null;
        return e.getAsString();
    }

    /** {"value": {"error": code, "message": message, "stacktrace": ""}}. */
    static JsonObject error(String code, String message) {
        JsonObject v = new JsonObject();
        v.addProperty("error", code);
        v.addProperty("message", message);
        v.addProperty("stacktrace", "");
        JsonObject o = new JsonObject();
        o.add("value", v);
        return o;
    }
}
