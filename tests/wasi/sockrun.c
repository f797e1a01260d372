/* sockrun.c - runs a program with a connected stream socket as its
 * stdin: the peer (this process) sends "ping", reads until EOF, waits
 * for the program and then prints what it received.
 * usage: sockrun PROGRAM [ARGS...]   (exit status: the program's) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int sv[2];
	if (argc < 2) {
		fprintf(stderr, "usage: sockrun PROGRAM [ARGS...]\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		perror("sockrun: socketpair");
		return 2;
	}
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		perror("sockrun: fork");
		return 2;
	}
	if (pid == 0) {
		close(sv[0]);
		if (dup2(sv[1], 0) < 0) {
			perror("sockrun: dup2");
			_exit(127);
		}
		close(sv[1]);
		execvp(argv[1], argv + 1);
		perror("sockrun: exec");
		_exit(127);
	}
	close(sv[1]);
	if (write(sv[0], "ping", 4) != 4)
		perror("sockrun: write");
	char got[256];
	size_t n = 0;
	ssize_t r;
	while (n < sizeof got - 1 && (r = read(sv[0], got + n, sizeof got - 1 - n)) > 0)
		n += (size_t)r;
	got[n] = 0;
	close(sv[0]);
	int st;
	if (waitpid(pid, &st, 0) < 0) {
		perror("sockrun: waitpid");
		return 2;
	}
	printf("peer received: %s\n", got);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
