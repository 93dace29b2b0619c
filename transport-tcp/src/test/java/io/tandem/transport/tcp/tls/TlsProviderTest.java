package io.tandem.transport.tcp.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import org.junit.jupiter.api.Test;

/** Which TLS implementation the transport uses, and how a user picks one. */
class TlsProviderTest {
    @Test
    void autoTakesOpenSslWhereItLoadsWithTls13AndTheJdkElsewhere() {
        boolean openSsl = OpenSsl.isAvailable() && SslProvider.isTlsv13Supported(SslProvider.OPENSSL);
        assertThat(TlsMaterial.chooseProvider("auto")).isEqualTo(openSsl ? SslProvider.OPENSSL : SslProvider.JDK);
        assertThat(TlsMaterial.chooseProvider("JDK")).isEqualTo(SslProvider.JDK);
        if (OpenSsl.isAvailable()) assertThat(TlsMaterial.chooseProvider("openssl")).isEqualTo(SslProvider.OPENSSL);
    }

    @Test
    void anUnknownProviderIsAConfigurationErrorThatNamesTheChoices() {
        assertThatThrownBy(() -> TlsMaterial.chooseProvider("boringssl"))
                .isInstanceOf(TlsConfigException.class)
                .hasMessage("tandem.tls.provider must be auto, openssl or jdk, not 'boringssl'");
    }

    @Test
    void theLinuxX8664BuildShipsOpenSsl() {
        // This build depends on netty-tcnative-boringssl-static for linux-x86_64 only.
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux") && System.getProperty("os.arch").equals("amd64"));
        assertThat(OpenSsl.isAvailable()).as(String.valueOf(OpenSsl.unavailabilityCause())).isTrue();
        assertThat(TlsMaterial.PROVIDER).isEqualTo(SslProvider.OPENSSL);
    }
}
