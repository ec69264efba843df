package typestar.agent;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

/**
 * The {@code /v1/status} bodies of the JVM agent (device/PROTOCOL.md): a typestate device's purpose
 * and a data device's typed signature, as {@link Agent} serves them and {@link Agent#statusOf} gives them.
 */
final class Status {
    private Status() {}

    /** The {@code /v1/status} body of the data device {@code dataPurpose}, serving {@code maxSessions} at once. */
    static JsonObject dataStatus(DataPurpose<?> dataPurpose, int maxSessions) {
        JsonObject b = new JsonObject();
        b.addProperty("protocol", Agent.PROTOCOL);
        b.addProperty("agent", "typestar-jvm");
        b.addProperty("name", dataPurpose.name);
        b.addProperty("framework", dataPurpose.framework);
        JsonArray callins = new JsonArray();
        dataPurpose.callins.keySet().forEach(callins::add);
        b.add("callins", callins);
        b.add("callbacks", new JsonArray());
        JsonObject timing = new JsonObject();
        timing.addProperty("tmax_ms", 0);
        timing.addProperty("tmin_ms", 0);
        b.add("timing", timing);
        b.addProperty("quiet_is_stable", true);
        b.addProperty("max_sessions", maxSessions);
        b.add("data", dataSignature(dataPurpose));
        return b;
    }

    /** The {@code /v1/status} body of the typestate device {@code purpose}, serving {@code maxSessions} at once. */
    static JsonObject typestateStatus(LearningPurpose<?> purpose, int maxSessions) {
        JsonObject statusBody = new JsonObject();
        statusBody.addProperty("protocol", Agent.PROTOCOL);
        statusBody.addProperty("agent", "typestar-jvm");
        statusBody.addProperty("name", purpose.name);
        statusBody.addProperty("framework", purpose.framework);
        JsonArray callins = new JsonArray();
        purpose.callinNames().forEach(callins::add);
        JsonArray callbacks = new JsonArray();
        purpose.callbackNames().forEach(callbacks::add);
        statusBody.add("callins", callins);
        statusBody.add("callbacks", callbacks);
        JsonObject timing = new JsonObject();
        timing.addProperty("tmax_ms", purpose.tmaxMs);
        timing.addProperty("tmin_ms", purpose.tminMs);
        statusBody.add("timing", timing);
        statusBody.addProperty("quiet_is_stable", purpose.quietIsStable);
        statusBody.addProperty("max_sessions", maxSessions);
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
