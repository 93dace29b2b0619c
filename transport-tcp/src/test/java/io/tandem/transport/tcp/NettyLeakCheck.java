package io.tandem.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Fails a test class whose tests leaked Netty buffers (after all its transports are closed). */
final class NettyLeakCheck implements BeforeAllCallback, AfterAllCallback {
    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        assertThat(LeakRecorder.installedForByteBuf())
                .as("the leak recorder must be installed before Netty creates its buffer leak detector (see LeakRecordingSessionListener)")
                .isTrue();
        LeakRecorder.collectLeaks(); // leaks of earlier classes were reported there
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        List<String> leaks = LeakRecorder.collectLeaks();
        assertThat(leaks).as("Netty buffers leaked by " + context.getDisplayName()).isEmpty();
    }
}
