#!/bin/bash
# Generates a small C project: most modules compile, some warn, a few fail.
for i in $(seq -w 1 240); do
  f=src/mod_$i.c
  case $i in
    017) cat > $f <<C
#include <stdio.h>
#include "common.h"
int mod_$i(int x) {
  int y = x * 2
  return y + undefined_counter;
}
C
;;
    042) cat > $f <<C
#include <string.h>
#include "common.h"
struct packet { int len; char data[16]; };
int mod_$i(const char *s) {
  struct packet p;
  strcpy(p.data, s);
  return p.length;
}
C
;;
    163) cat > $f <<C
#include "common.h"
#include "missing_config.h"
int mod_$i(int x) { return x + CONFIG_OFFSET; }
C
;;
    008|029|051|077|130|201) cat > $f <<C
#include <stdio.h>
#include "common.h"
int mod_$i(int x) {
  int unused_$i;
  char buf[8];
  sprintf(buf, "%d-%d", x, x * 1000000);
  if (x = 3) return 1;
  return (int)(long)buf;
}
C
;;
    *) cat > $f <<C
#include "common.h"
int mod_$i(int x) {
  int acc = 0;
  for (int k = 0; k < x; k++) acc += k * $((10#$i));
  return acc;
}
C
;;
  esac
done
cat > src/common.h <<C
#pragma once
int helper(int);
C
cat > Makefile <<'M'
CC = gcc
CFLAGS = -O2 -g -Wall -Wextra -Wformat-overflow=2 -std=c11 -fPIC -Isrc -DNDEBUG -D_FORTIFY_SOURCE=2 -fstack-protector-strong
SRCS = $(wildcard src/*.c)
OBJS = $(patsubst src/%.c,build/%.o,$(SRCS))
all: libmods.so
build/%.o: src/%.c
	@mkdir -p build
	$(CC) $(CFLAGS) -c $< -o $@
libmods.so: $(OBJS)
	$(CC) -shared -o $@ $(OBJS)
clean:
	rm -rf build libmods.so
M
