package io.tandem.storage;

import java.io.IOException;
import java.nio.file.FileSystemException;

/**
 * A typed storage error. Every I/O problem of the storage layer surfaces as one of these
 * subclasses, so callers can tell a full disk from corruption from a refused directory without
 * parsing messages. Unchecked: blocking stores are driven by one disk thread that turns them into
 * {@link StorageEvent.StorageFailed}, and the engine-facing views throw
 * {@link StorageFailedException} once storage has failed.
 */
public abstract sealed class StorageException extends RuntimeException
        permits StorageFullException, StorageIOException, CorruptStorageException,
                DataDirectoryMismatchException, StorageFailedException {

    protected StorageException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Classifies an {@link IOException} from {@code operation}: "No space left on device" (ENOSPC)
     * and "Disk quota exceeded" (EDQUOT) become {@link StorageFullException}, anything else
     * {@link StorageIOException}.
     */
    public static StorageException fromIOException(String operation, IOException e) {
        String detail = describe(e);
        if (isOutOfSpace(e)) return new StorageFullException(operation + ": disk full (" + detail + ")", e);
        return new StorageIOException(operation + ": " + detail, e);
    }

    private static boolean isOutOfSpace(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String text = t instanceof FileSystemException fse ? fse.getReason() + " " + fse.getMessage() : t.getMessage();
            if (text != null && (text.contains("No space left on device") || text.contains("Disk quota exceeded"))) return true;
        }
        return false;
    }

    /**
     * What went wrong, in words: the JDK's file exceptions carry only the path as their message
     * ("data/n1"), so the kind of failure is spelled out from the exception's type.
     */
    public static String describe(IOException e) {
        if (e instanceof FileSystemException f) {
            String reason = f.getReason() != null ? f.getReason() : switch (f) {
                case java.nio.file.AccessDeniedException a -> "permission denied";
                case java.nio.file.FileAlreadyExistsException a -> "a file of that name is in the way";
                case java.nio.file.NotDirectoryException a -> "not a directory";
                case java.nio.file.NoSuchFileException a -> "no such file or directory";
                case java.nio.file.DirectoryNotEmptyException a -> "directory not empty";
                default -> f.getClass().getSimpleName();
            };
            return f.getFile() == null ? reason : f.getFile() + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile()) + ": " + reason;
        }
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message;
    }
}
