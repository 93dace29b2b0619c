package io.tandem.bench.os;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Undo actions for everything a benchmark sets up on the machine (server processes, cgroups, loop
 * devices, mounts), run newest first: by {@link #close()} at the end of the run, by the JVM's
 * shutdown hook on Ctrl-C or SIGTERM, or by the caller after a failure. Each action runs at most
 * once; one that fails is reported and does not stop the others.
 */
public final class Cleanup implements AutoCloseable {
    private final Deque<Action> actions = new ArrayDeque<>();
    private final Thread hook = Thread.ofPlatform().name("tandem-bench-cleanup").unstarted(this::runAll);
    private boolean hookInstalled;
    private volatile boolean closing;

    /** A registered undo action; {@link #run()} runs it now (once) and forgets it. */
    public final class Action implements Runnable {
        private final String what;
        private final Runnable undo;
        private boolean done;

        private Action(String what, Runnable undo) {
            this.what = what;
            this.undo = undo;
        }

        @Override
        public void run() {
            synchronized (Cleanup.this) {
                if (done) return;
                done = true;
                actions.remove(this);
            }
            try {
                undo.run();
            } catch (RuntimeException e) {
                System.err.println("cleanup: " + what + " failed: " + e.getMessage());
            }
        }

        public String what() {
            return what;
        }
    }

    /** Installs the shutdown hook that runs whatever is still registered when the JVM exits. */
    public synchronized Cleanup installShutdownHook() {
        if (!hookInstalled) {
            Runtime.getRuntime().addShutdownHook(hook);
            hookInstalled = true;
        }
        return this;
    }

    /**
     * Registers {@code undo}, described by {@code what} for error messages. Once cleaning up has
     * begun (Ctrl-C while a step is still running), nothing new may be set up: {@code undo} runs at
     * once and this throws, so a process started at that moment does not outlive the benchmark.
     */
    public Action register(String what, Runnable undo) {
        Action a = new Action(what, undo);
        synchronized (this) {
            if (!closing) {
                actions.push(a);
                return a;
            }
        }
        a.done = true;
        undo.run();
        throw new IllegalStateException("the benchmark is shutting down; undid '" + what + "' at once");
    }

    /** Whether cleaning up has begun; long-running loops stop when it has. */
    public boolean closing() {
        return closing;
    }

    /** How many actions are still registered. */
    public synchronized int pending() {
        return actions.size();
    }

    private void runAll() {
        closing = true;
        while (true) {
            Action next;
            synchronized (this) {
                next = actions.peek();
            }
            if (next == null) return;
            next.run();
        }
    }

    @Override
    public void close() {
        runAll();
        synchronized (this) {
            if (hookInstalled) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // Already shutting down: the hook is running or has run.
                }
                hookInstalled = false;
            }
        }
    }
}
