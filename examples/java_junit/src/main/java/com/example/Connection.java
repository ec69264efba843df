package com.example;

/**
 * The team's class under test: a connection that is opened once, sends while open, and is closed
 * (closing twice is harmless). The simulated upgrade (-Dexample.upgrade=true) lets a closed
 * connection be opened again: a behaviour change the committed spec catches.
 */
public final class Connection {
    private enum State { NEW, OPEN, CLOSED }

    private static final boolean UPGRADED = Boolean.getBoolean("example.upgrade");
    private State state = State.NEW;

    public void open() {
        if (state == State.OPEN || (state == State.CLOSED && !UPGRADED))
            throw new IllegalStateException("cannot open a connection that is " + state);
        state = State.OPEN;
    }

    public void send(String message) {
        if (state != State.OPEN) throw new IllegalStateException("cannot send on a connection that is " + state);
    }

    public void close() {
        if (state == State.NEW) throw new IllegalStateException("never opened");
        state = State.CLOSED;
    }
}
