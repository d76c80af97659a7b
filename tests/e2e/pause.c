// SPDX-License-Identifier: GPL-2.0
/*
 * pause: the pod sandbox's process in the k8s e2e suite's sandbox image
 * (tests/e2e/runtimes.sh builds it static into an OCI image; containerd's
 * pinned sandbox image names it). It does what Kubernetes' pause does:
 * wait for a signal, exit 0 on SIGINT/SIGTERM, reap orphans (pid 1 of a
 * shared pid namespace).
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void quit(int sig)
{
	(void)sig;
	_exit(0);
}

static void reap(int sig)
{
	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int main(void)
{
	struct sigaction q = { .sa_handler = quit }, r = { .sa_handler = reap, .sa_flags = SA_NOCLDSTOP };

	if (sigaction(SIGINT, &q, NULL) || sigaction(SIGTERM, &q, NULL) || sigaction(SIGCHLD, &r, NULL))
		return 1;
	for (;;)
		pause();
}
