package com.example.dump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.example.dump.DirectoryBlockReader.CorruptArchiveException;
import com.example.dump.DirectoryBlockReader.DirectoryEntry;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DirectoryBlockReaderTest {

    private static final int FILE = 8;
    private static final int DIRECTORY = 4;

    /** Encodes one directory entry; recordLength 0 means "exactly as long as needed, padded to 4". */
    private static byte[] entry(long inode, int recordLength, int type, String name) {
        byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        int natural = (DirectoryBlockReader.ENTRY_HEADER + nameBytes.length + 3) & ~3;
        ByteBuffer buffer = ByteBuffer.allocate(Math.max(natural, DirectoryBlockReader.ENTRY_HEADER + nameBytes.length));
        buffer.putInt((int) inode).putShort((short) recordLength).put((byte) type).put((byte) nameBytes.length).put(nameBytes);
        return buffer.array();
    }

    private static byte[] entry(long inode, int type, String name) {
        byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        return entry(inode, (DirectoryBlockReader.ENTRY_HEADER + nameBytes.length + 3) & ~3, type, name);
    }

    private static byte[] block(byte[]... entries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] e : entries) {
            out.writeBytes(e);
        }
        return out.toByteArray();
    }

    private final DirectoryBlockReader reader = new DirectoryBlockReader(StandardCharsets.US_ASCII);

    @Test
    void deletedEntryWithZeroLengthDoesNotHang() {
        DirectoryBlockReader parser = new DirectoryBlockReader(StandardCharsets.US_ASCII);
        byte[] hostile = block(entry(2, DIRECTORY, "."), entry(0, 0, FILE, "gone.txt"), entry(12, FILE, "notes.txt"));
        assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
            try {
                parser.read(hostile);
            } catch (CorruptArchiveException rejected) {
                // rejecting the block is a fine answer; spinning forever is not
            }
        });
    }

    @Test
    void readsLiveEntries() throws Exception {
        List<DirectoryEntry> entries = reader.read(block(entry(2, DIRECTORY, "."), entry(1, DIRECTORY, ".."),
                entry(12, FILE, "notes.txt")));
        assertEquals(List.of(new DirectoryEntry(2, DIRECTORY, "."), new DirectoryEntry(1, DIRECTORY, ".."),
                new DirectoryEntry(12, FILE, "notes.txt")), entries);
    }

    @Test
    void skipsDeletedEntries() throws Exception {
        List<DirectoryEntry> entries = reader.read(block(entry(2, DIRECTORY, "."), entry(0, FILE, "old.txt"),
                entry(13, FILE, "new.txt")));
        assertEquals(List.of(new DirectoryEntry(2, DIRECTORY, "."), new DirectoryEntry(13, FILE, "new.txt")), entries);
    }

    @Test
    void rejectsNameLongerThanItsRecord() {
        assertThrows(CorruptArchiveException.class,
                () -> reader.read(block(entry(5, 12, FILE, "much-too-long-name.txt"))));
    }

    @Test
    void emptyBlockHasNoEntries() throws Exception {
        assertEquals(List.of(), reader.read(new byte[0]));
    }
}
