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
