package io.tandem.cli;

import picocli.CommandLine;

final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = TandemCli.class.getPackage().getImplementationVersion();
        return new String[] {"tandem " + (v == null ? "development build" : v), "Java " + Runtime.version()};
    }
}
