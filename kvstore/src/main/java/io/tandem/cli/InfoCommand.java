package io.tandem.cli;

import io.tandem.codec.FrameFormat;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** Prints what this machine offers Tandem: JDK, cores, memory, wire format. */
@Command(name = "info", description = "Show the JDK, hardware and wire-format facts this build runs with.")
final class InfoCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        Runtime rt = Runtime.getRuntime();
        System.out.printf("java          %s (%s)%n", Runtime.version(), System.getProperty("java.vendor"));
        System.out.printf("os            %s %s %s%n", System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"));
        System.out.printf("cores         %d%n", rt.availableProcessors());
        System.out.printf("max heap      %d MiB%n", rt.maxMemory() >> 20);
        System.out.printf("frame format  version %d, max frame %d bytes%n", FrameFormat.VERSION, FrameFormat.DEFAULT_MAX_FRAME_BYTES);
        return 0;
    }
}
