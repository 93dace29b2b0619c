package io.tandem.cli;

/**
 * Log settings for slf4j-simple, applied before the first logger is created. A property already
 * given on the command line ({@code -Dorg.slf4j.simpleLogger...}) wins.
 */
final class Logging {
    private static final String PREFIX = "org.slf4j.simpleLogger.";

    private Logging() {}

    /** Server logs: timestamps, short logger names, Netty's chatter only from warnings up. */
    static void configureForServer() {
        setDefault("showDateTime", "true");
        setDefault("dateTimeFormat", "yyyy-MM-dd HH:mm:ss.SSS");
        setDefault("showShortLogName", "true");
        setDefault("log.io.netty", "warn");
    }

    /** Client commands print their own messages: only warnings and errors from the libraries. */
    static void configureForClient() {
        setDefault("defaultLogLevel", "warn");
        setDefault("showShortLogName", "true");
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(PREFIX + key) == null) System.setProperty(PREFIX + key, value);
    }
}
