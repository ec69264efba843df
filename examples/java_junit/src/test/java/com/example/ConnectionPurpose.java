package com.example;

import typestar.agent.LearningPurpose;
import typestar.agent.PurposeProvider;

/**
 * How typestar drives a Connection: a fresh instance per query, one snippet per callin. No
 * callbacks, so a `wait` always answers quiet after tmax (10 ms) and a second one is not run.
 */
public final class ConnectionPurpose implements PurposeProvider {
    @Override
    public LearningPurpose<?> purpose() {
        return LearningPurpose.of("com.example.Connection", Connection.class)
                .framework("example-1")
                .reset(sink -> new Connection())
                .callin("open", Connection::open)
                .callin("send", c -> c.send("hello"))
                .callin("close", Connection::close)
                .timing(10, 0)
                .quietIsStable();
    }
}
