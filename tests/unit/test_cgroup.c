// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests: container ids from the cgroup layouts of runtimes and systemd. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "cgroup.h"
#include "model.h"

#define ID  "3f4a0c9d2e1b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a39"
#define ID2 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void expect(const char *path, const char *id, const char *runtime)
{
	char got[CGROUP_CONTAINER_ID_LEN + 1];
	const char *rt = "unset";
	bool found = cgroup__container(path, strlen(path) + 1, got, &rt);

	if (!id) {
		if (found)
			fail_msg("%s: found %s", path, got);
		assert_string_equal(got, "");
		assert_null(rt);
		return;
	}
	if (!found)
		fail_msg("%s: no container", path);
	assert_string_equal(got, id);
	if (runtime)
		assert_string_equal(rt, runtime);
	else
		assert_null(rt);
}

static void test_layouts(void **state)
{
	/* docker: systemd driver, cgroupfs driver */
	expect("/system.slice/docker-" ID ".scope", ID, "docker");
	expect("/docker/" ID, ID, "docker");
	/* containerd's CRI plugin, kubelet with the systemd driver; cgroupfs */
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c3d4e_5f60_"
	       "7182_93a4_b5c6d7e8f901.slice/cri-containerd-" ID ".scope",
	       ID, "containerd");
	expect("/kubepods/burstable/pod1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901/" ID, ID, NULL);
	/* CRI-O; its conmon is not the container */
	expect("/kubepods.slice/kubepods-pod1.slice/crio-" ID ".scope", ID, "cri-o");
	expect("/kubepods.slice/kubepods-pod1.slice/crio-conmon-" ID ".scope", NULL, NULL);
	/* podman: systemd (with systemd inside the container), cgroupfs; conmon */
	expect("/machine.slice/libpod-" ID ".scope", ID, "podman");
	expect("/machine.slice/libpod-" ID ".scope/container", ID, "podman");
	expect("/libpod_parent/libpod-" ID, ID, "podman");
	expect("/machine.slice/libpod-conmon-" ID ".scope", NULL, NULL);
	/* the innermost wins */
	expect("/docker/" ID "/docker/" ID2, ID2, "docker");
	/* not containers */
	expect("/", NULL, NULL);
	expect("", NULL, NULL);
	expect("/user.slice/user-0.slice/session-3.scope", NULL, NULL);
	expect("/system.slice/ssh.service", NULL, NULL);
	expect("/docker-" ID "x.scope", NULL, NULL);
	expect("/docker-3F4A0C9D2E1B8A7F6E5D4C3B2A1F0E9D8C7B6A5F4E3D2C1B0A9F8E7D6C5B4A39.scope",
	       NULL, NULL);
	expect("/docker-" ID2 ".scope\n/docker-", NULL, NULL);
	(void)state;
}

/* The path is bytes with a bound, not necessarily terminated. */
static void test_bounded(void **state)
{
	char path[] = "/libpod_parent/libpod-" ID "XXXX";
	char got[CGROUP_CONTAINER_ID_LEN + 1];
	const char *rt;

	assert_false(cgroup__container(path, sizeof(path) - 1, got, &rt));
	assert_true(cgroup__container(path, sizeof(path) - 5, got, &rt));
	assert_string_equal(got, ID);
	(void)state;
}

/* A cgroup record takes the container from the unified path, else from v1's. */
static void test_record(void **state)
{
	struct pcgroup *cg = pcgroup__new("/", 4096, 1, "/docker/" ID, 4096);

	assert_non_null(cg);
	assert_string_equal(cg->container, ID);
	assert_string_equal(cg->runtime, "docker");
	assert_string_equal(cg->v2, "/");
	pcgroup__put(cg);
	cg = pcgroup__new("/libpod_parent/libpod-" ID2, 4096, 7, "/docker/" ID, 4096);
	assert_string_equal(cg->container, ID2);
	assert_int_equal(cg->id, 7);
	pcgroup__put(cg);
	cg = pcgroup__new(NULL, 0, 0, NULL, 0);
	assert_string_equal(cg->container, "");
	assert_null(cg->v1);
	pcgroup__put(cg);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
