package io.tandem.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code tandem} command line; each capability adds a subcommand. */
@Command(
        name = "tandem",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Tandem: state machine replication for the JVM.",
        subcommands = {CommandLine.HelpCommand.class, InfoCommand.class, CheckCommand.class, SimCommand.class, ServerCommand.class, ClusterCommand.class, DemoCommand.class,
                KvCommands.Put.class, KvCommands.Get.class, KvCommands.Delete.class, KvCommands.Cas.class, KvCommands.Scan.class,
                KvCommands.Status.class})
public final class TandemCli implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new TandemCli()).setCaseInsensitiveEnumValuesAllowed(true);
        cli.getSubcommands().get("server").getCommandSpec().usageMessage().footer(ServerCommand.keyTable());
        return cli;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
