package com.example.dump;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads the entries of one directory block of a dump(8)-style archive. An entry is laid out as
 * a 4-byte inode number, a 2-byte record length (header, name and padding), a 1-byte file type,
 * a 1-byte name length and the name; the next entry starts record-length bytes later. Entries
 * whose inode is 0 are deleted slots that the reader steps over.
 */
public final class DirectoryBlockReader {

    /** Size of the fixed part of an entry, before the name. */
    static final int ENTRY_HEADER = 8;

    /** One live entry of a directory. */
    public record DirectoryEntry(long inode, int type, String name) {
    }

    /** A directory block whose bytes do not describe valid entries. */
    public static final class CorruptArchiveException extends Exception {
        public CorruptArchiveException(String message) {
            super(message);
        }
    }

    private final Charset nameCharset;

    public DirectoryBlockReader(Charset nameCharset) {
        this.nameCharset = Objects.requireNonNull(nameCharset);
    }

    /** Returns the live entries of a directory block in the order they appear. */
    public List<DirectoryEntry> read(byte[] block) throws CorruptArchiveException {
        ByteBuffer buffer = ByteBuffer.wrap(block);
        List<DirectoryEntry> entries = new ArrayList<>();
        int offset = 0;
        while (offset + ENTRY_HEADER <= block.length) {
            long inode = Integer.toUnsignedLong(buffer.getInt(offset));
            int recordLength = Short.toUnsignedInt(buffer.getShort(offset + 4));
            int type = Byte.toUnsignedInt(buffer.get(offset + 6));
            int nameLength = Byte.toUnsignedInt(buffer.get(offset + 7));
            if (inode != 0) {
                if (ENTRY_HEADER + nameLength > recordLength || offset + recordLength > block.length) {
                    throw new CorruptArchiveException("entry at offset " + offset + " does not fit its record");
                }
                String name = new String(block, offset + ENTRY_HEADER, nameLength, nameCharset);
                entries.add(new DirectoryEntry(inode, type, name));
            }
            offset += recordLength;
        }
        return entries;
    }
}
