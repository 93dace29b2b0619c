package io.tandem.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code tandem} command line; each capability adds a subcommand. */
@Command(
        name = "tandem",
        mixinStandardHelpOptions = true,
        versionProvider = VersionProvider.class,
        description = "Tandem: state machine replication for the JVM.",
        subcommands = {CommandLine.HelpCommand.class, InfoCommand.class, DemoCommand.class, ClusterCommand.class, ServerCommand.class,
                KvCommands.Put.class, KvCommands.Get.class, KvCommands.Delete.class, KvCommands.Cas.class, KvCommands.Scan.class,
                KvCommands.Status.class, KvCommands.Member.class, CertsCommand.class, SimCommand.class, SimBenchCommand.class, CheckCommand.class})
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
        cli.setParameterExceptionHandler(TandemCli::badInput);
        return cli;
    }

    /** A short, specific message for bad input instead of the whole usage text; exit status 2. */
    private static int badInput(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        java.io.PrintWriter err = cmd.getErr();
        boolean topLevel = cmd.getCommandSpec().parent() == null;
        if (topLevel && e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty() && !u.getUnmatched().getFirst().startsWith("-")) {
            err.println("tandem: unknown command '" + u.getUnmatched().getFirst() + "'. The commands are: "
                    + String.join(", ", cmd.getSubcommands().keySet()) + ".");
            err.println("Run ./tandem --help to see what each one does.");
        } else {
            String name = topLevel ? "tandem" : "tandem " + cmd.getCommandName();
            err.println(name + ": " + e.getMessage());
            err.println("Run ./" + name + " --help for the usage.");
        }
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
