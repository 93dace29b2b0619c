package io.tandem.cli;

import io.tandem.codec.FrameFormat;
import io.tandem.protocols.Protocols;
import io.tandem.transport.tcp.IoMode;
import io.tandem.transport.tcp.NettyIo;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Prints what this machine offers Tandem: JDK, cores, memory, wire format, protocols. */
@Command(name = "info", mixinStandardHelpOptions = true, description = "Show the JDK, hardware, network io modes, wire format and protocols of this build.")
final class InfoCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Option(names = "--names", description = "Print only the names of the protocols of this build, one per line, for scripts.")
    boolean namesOnly;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        if (namesOnly) {
            for (String name : Protocols.names()) out.println(name);
            out.flush();
            return 0;
        }
        Runtime rt = Runtime.getRuntime();
        out.printf("java          %s (%s)%n", Runtime.version(), System.getProperty("java.vendor"));
        out.printf("os            %s %s %s%n", System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"));
        out.printf("cores         %d%n", rt.availableProcessors());
        out.printf("max heap      %d MiB%n", rt.maxMemory() >> 20);
        out.printf("frame format  version %d, max frame %d bytes%n", FrameFormat.VERSION, FrameFormat.DEFAULT_MAX_FRAME_BYTES);
        StringBuilder io = new StringBuilder();
        for (IoMode mode : IoMode.values()) {
            if (mode != IoMode.AUTO) io.append(mode.name().toLowerCase(Locale.ROOT)).append(NettyIo.isAvailable(mode) ? "=yes " : "=no ");
        }
        out.printf("network io    %s(auto picks %s)%n", io, NettyIo.resolve(IoMode.AUTO).mode().name().toLowerCase(Locale.ROOT));
        out.printf("protocols     %s%n", String.join(", ", Protocols.names()));
        out.flush();
        return 0;
    }
}
