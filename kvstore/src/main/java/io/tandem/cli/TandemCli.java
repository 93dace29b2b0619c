package io.tandem.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code tandem} command line; each capability adds a subcommand. */
@Command(
        name = "tandem",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Tandem: state machine replication for the JVM.",
        subcommands = {CommandLine.HelpCommand.class, InfoCommand.class, CheckCommand.class, SimCommand.class})
public final class TandemCli implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static CommandLine commandLine() {
        return new CommandLine(new TandemCli()).setCaseInsensitiveEnumValuesAllowed(true);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
