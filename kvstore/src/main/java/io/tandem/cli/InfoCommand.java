package io.tandem.cli;

import io.tandem.codec.FrameFormat;
import io.tandem.protocols.Protocols;
import io.tandem.transport.tcp.IoMode;
import io.tandem.transport.tcp.NettyIo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Prints what this machine offers Tandem: JDK, cores, memory, wire format. */
@Command(name = "info", mixinStandardHelpOptions = true, description = "Show the JDK, hardware, network io modes, wire format and protocols of this build.")
final class InfoCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        Runtime rt = Runtime.getRuntime();
        System.out.printf("java          %s (%s)%n", Runtime.version(), System.getProperty("java.vendor"));
        System.out.printf("os            %s %s %s%n", System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"));
        System.out.printf("cores         %d%n", rt.availableProcessors());
        System.out.printf("max heap      %d MiB%n", rt.maxMemory() >> 20);
        System.out.printf("frame format  version %d, max frame %d bytes%n", FrameFormat.VERSION, FrameFormat.DEFAULT_MAX_FRAME_BYTES);
        StringBuilder io = new StringBuilder();
        for (IoMode mode : IoMode.values()) {
            if (mode != IoMode.AUTO) io.append(mode.name().toLowerCase(java.util.Locale.ROOT)).append(NettyIo.isAvailable(mode) ? "=yes " : "=no ");
        }
        System.out.printf("network io    %s(auto picks %s)%n", io, NettyIo.resolve(IoMode.AUTO).mode().name().toLowerCase(java.util.Locale.ROOT));
        System.out.printf("protocols     %s%n", String.join(", ", Protocols.names()));
        return 0;
    }
}
