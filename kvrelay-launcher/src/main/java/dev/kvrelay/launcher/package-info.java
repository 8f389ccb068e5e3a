@org.jspecify.annotations.NullMarked package dev.kvrelay.launcher;
