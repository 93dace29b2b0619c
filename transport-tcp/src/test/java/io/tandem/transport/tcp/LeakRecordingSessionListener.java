package io.tandem.transport.tcp;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/** Installs the {@link LeakRecorder} when the test JVM starts, before any Netty buffer class loads. */
public final class LeakRecordingSessionListener implements LauncherSessionListener {
    @Override
    public void launcherSessionOpened(LauncherSession session) {
        LeakRecorder.install();
    }
}
