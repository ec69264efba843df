package typestar.agent;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * The {@code /v1/status} bodies of the JVM agent (device/PROTOCOL.md): a typestate device's purpose
 * and a data device's typed signature, as {@link Agent} serves them and {@link Agent#statusOf} gives them.
 */
final class Status {
    private Status() {}

    /** The fields of every status body, in the protocol's order (device/PROTOCOL.md). */
    private static JsonObject common(String name, String framework, Iterable<String> callins, Iterable<String> callbacks,
            long tmaxMs, long tminMs, boolean quietIsStable, int maxSessions) {
        JsonObject b = new JsonObject();
        b.addProperty("protocol", Agent.PROTOCOL);
        b.addProperty("agent", "typestar-jvm");
        b.addProperty("name", name);
        b.addProperty("framework", framework);
        JsonArray in = new JsonArray();
        callins.forEach(in::add);
        JsonArray out = new JsonArray();
        callbacks.forEach(out::add);
        b.add("callins", in);
        b.add("callbacks", out);
        JsonObject timing = new JsonObject();
        timing.addProperty("tmax_ms", tmaxMs);
        timing.addProperty("tmin_ms", tminMs);
        b.add("timing", timing);
        b.addProperty("quiet_is_stable", quietIsStable);
        b.addProperty("max_sessions", maxSessions);
        return b;
    }

    /** The {@code /v1/status} body of the data device {@code dataPurpose}, serving {@code maxSessions} at once. */
    static JsonObject dataStatus(DataPurpose<?> dataPurpose, int maxSessions) {
        // a data device never waits: no callbacks, timing 0/0
        JsonObject b = common(dataPurpose.name, dataPurpose.framework, dataPurpose.callins.keySet(), java.util.List.of(),
                0, 0, true, maxSessions);
        b.add("data", dataSignature(dataPurpose));
        return b;
    }

    /** The {@code /v1/status} body of the typestate device {@code purpose}, serving {@code maxSessions} at once. */
    static JsonObject typestateStatus(LearningPurpose<?> purpose, int maxSessions) {
        JsonObject statusBody = common(purpose.name, purpose.framework, purpose.callinNames(), purpose.callbackNames(),
                purpose.tmaxMs, purpose.tminMs, purpose.quietIsStable, maxSessions);
        if (!purpose.expanded.isEmpty()) statusBody.add("parameters", parameters(purpose));
        // Additive field: the learning purpose may deny callins (answered err, marked outside_purpose).
        if (purpose.filter != null || purpose.callbacksDrained) statusBody.addProperty("outside_purpose", true);
        // Additive fields (device/PROTOCOL.md, "Mealy devices"): named outputs, no wait, err not absorbing.
        if (purpose.mealy) {
            JsonArray outputs = new JsonArray();
            purpose.outputs.forEach(outputs::add);
            statusBody.add("outputs", outputs);
            if (!purpose.hasWait) statusBody.addProperty("wait", false);
            if (!purpose.errAbsorbing) statusBody.add("absorbing", new JsonArray());
        }
        // Additive field: /v1/run takes timeout_ms (every wait of the run waits that long).
        if (purpose.hasWait) statusBody.addProperty("run_timeout", true);
        if (!purpose.environment.isEmpty()) {
            JsonArray environment = new JsonArray();
            purpose.environment.forEach(environment::add);
            statusBody.add("environment", environment);
        }
        return statusBody;
    }

    /** The status field {@code data}: the typed signature of a data device (all parameters and constants {@code int}, no callbacks). */
    static JsonObject dataSignature(DataPurpose<?> purpose) {
        JsonObject data = new JsonObject();
        JsonArray inputs = new JsonArray();
        for (var c : purpose.callins.values()) inputs.add(symbol(c.symbol(), false));
        JsonArray outputs = new JsonArray();
        for (var o : purpose.outputs.values()) outputs.add(symbol(o, true));
        data.add("inputs", inputs);
        data.add("outputs", outputs);
        JsonArray constants = new JsonArray();
        purpose.constants.forEach((name, value) -> {
            JsonObject c = new JsonObject();
            c.addProperty("name", name);
            c.addProperty("type", "int");
            c.addProperty("value", value);
            constants.add(c);
        });
        data.add("constants", constants);
        return data;
    }

    private static JsonObject symbol(DataPurpose.Symbol s, boolean output) {
        JsonObject o = new JsonObject();
        o.addProperty("name", s.name());
        JsonArray parameters = new JsonArray();
        for (String p : s.parameters()) {
            JsonArray pair = new JsonArray();
            pair.add(p);
            pair.add("int");
            parameters.add(pair);
        }
        o.add("parameters", parameters);
        if (output) o.addProperty("callback", false);
        return o;
    }

    /** The status field {@code parameters} (device/PROTOCOL.md): each parameterised callin's signature and partitions. */
    static JsonArray parameters(LearningPurpose<?> purpose) {
        JsonArray out = new JsonArray();
        for (LearningPurpose.ExpandedCallin c : purpose.expanded) {
            JsonObject callin = new JsonObject();
            callin.addProperty("callin", c.callin());
            JsonArray signature = new JsonArray();
            for (LearningPurpose.Parameter p : c.signature()) {
                JsonArray pair = new JsonArray();
                pair.add(p.name());
                pair.add(p.type());
                signature.add(pair);
            }
            callin.add("signature", signature);
            JsonArray partitions = new JsonArray();
            for (LearningPurpose.ExpandedPartition p : c.partitions()) {
                JsonObject part = new JsonObject();
                part.addProperty("name", p.name());
                part.addProperty("guard", p.guard());
                JsonArray values = new JsonArray();
                for (LearningPurpose.ConcreteValue v : p.values()) {
                    JsonObject value = new JsonObject();
                    value.addProperty("input", v.input());
                    value.addProperty("value", v.value());
                    values.add(value);
                }
                part.add("values", values);
                partitions.add(part);
            }
            callin.add("partitions", partitions);
            out.add(callin);
        }
        return out;
    }
}
