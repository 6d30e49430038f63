// SPDX-License-Identifier: GPL-2.0-only
/* Container names from the runtimes' records: each runtime's file as it
 * writes it, and the files found under a root as the runtimes lay them
 * out. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "ctrnames.h"

#define ID "1cd6e7c7d83e2b7d8e7a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e"
#define ID2 "d51d7761f629a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a"

static const char docker_cfg[] =
	"{\"ID\":\"" ID "\",\"Name\":\"/shopweb\",\"Image\":\"sha256:0123\","
	"\"Config\":{\"Hostname\":\"1cd6e7c7d83e\",\"Image\":\"bb:1\",\"Labels\":null},"
	"\"State\":{\"Pid\":4242,\"Running\":true}}";

static const char docker_k8s_cfg[] =
	"{\"Name\":\"/k8s_cart_cart-7d9f_shop_uid_0\",\"Config\":{\"Image\":\"bb:1\","
	"\"Labels\":{\"io.kubernetes.pod.name\":\"cart-7d9f\","
	"\"io.kubernetes.pod.namespace\":\"shop\",\"io.kubernetes.container.name\":\"cart\"}}}";

static const char crio_oci[] =
	"{\"ociVersion\":\"1.0.2\",\"annotations\":{\"io.container.manager\":\"cri-o\","
	"\"io.kubernetes.pod.name\":\"cart-7d9f\",\"io.kubernetes.pod.namespace\":\"shop\","
	"\"io.kubernetes.container.name\":\"cart\","
	"\"io.kubernetes.cri-o.ImageName\":\"registry.example/cart:2\"}}";

static const char cri_containerd_oci[] =
	"{\"annotations\":{\"io.kubernetes.cri.container-type\":\"container\","
	"\"io.kubernetes.cri.sandbox-name\":\"cart-7d9f\","
	"\"io.kubernetes.cri.sandbox-namespace\":\"shop\","
	"\"io.kubernetes.cri.container-name\":\"cart\","
	"\"io.kubernetes.cri.image-name\":\"bb:1\"}}";

static const char podman_oci[] = "{\"annotations\":{\"io.container.manager\":\"libpod\","
				 "\"io.kubernetes.cri-o.Created\":\"2026-12-07\"}}";

static const char storage[] =
	"[{\"id\":\"" ID2 "\",\"names\":[\"other\"],\"metadata\":\"{}\"},"
	"{\"id\":\"" ID "\",\"names\":[\"shop web=1\"],\"image\":\"0123\","
	"\"metadata\":\"{\\\"image-name\\\":\\\"localhost/bb:1\\\",\\\"name\\\":\\\"x\\\"}\"}]";

static void docker(void **state)
{
	struct ps_ctr_names n = { 0 };

	(void)state;
	assert_int_equal(ps_ctr_names_docker(docker_cfg, strlen(docker_cfg), &n), 0);
	assert_string_equal(n.name, "shopweb");
	assert_string_equal(n.image, "bb:1");
	assert_string_equal(n.pod, "");
	memset(&n, 0, sizeof(n));
	assert_int_equal(ps_ctr_names_docker(docker_k8s_cfg, strlen(docker_k8s_cfg), &n), 0);
	assert_string_equal(n.pod, "cart-7d9f");
	assert_string_equal(n.pod_ns, "shop");
	assert_string_equal(n.k8s_container, "cart");
	assert_int_equal(ps_ctr_names_docker("[1]", 3, &n), -EINVAL);
	assert_int_equal(ps_ctr_names_docker("{\"Name\":", 8, &n), -EINVAL);
	assert_int_equal(ps_ctr_names_docker("", 0, &n), -EINVAL);
}

static void oci(void **state)
{
	static const char nerdctl[] = "{\"annotations\":{\"nerdctl/name\":\"web\"}}";
	struct ps_ctr_names n = { 0 };

	(void)state;
	assert_int_equal(ps_ctr_names_oci(crio_oci, strlen(crio_oci), &n), 0);
	assert_string_equal(n.pod, "cart-7d9f");
	assert_string_equal(n.pod_ns, "shop");
	assert_string_equal(n.k8s_container, "cart");
	assert_string_equal(n.image, "registry.example/cart:2");
	memset(&n, 0, sizeof(n));
	assert_int_equal(ps_ctr_names_oci(cri_containerd_oci, strlen(cri_containerd_oci), &n), 0);
	assert_string_equal(n.pod, "cart-7d9f");
	assert_string_equal(n.pod_ns, "shop");
	assert_string_equal(n.k8s_container, "cart");
	assert_string_equal(n.image, "bb:1");
	memset(&n, 0, sizeof(n));
	assert_int_equal(ps_ctr_names_oci(podman_oci, strlen(podman_oci), &n), 0);
	assert_string_equal(n.pod, "");
	assert_string_equal(n.name, "");
	/* What n has already stays: the first record to say a name wins. */
	strcpy(n.name, "kept");
	assert_int_equal(ps_ctr_names_oci(nerdctl, strlen(nerdctl), &n), 0);
	assert_string_equal(n.name, "kept");
	n.name[0] = '\0';
	assert_int_equal(ps_ctr_names_oci(nerdctl, strlen(nerdctl), &n), 0);
	assert_string_equal(n.name, "web");
	assert_int_equal(ps_ctr_names_oci("{\"annotations\":7}", 17, &n), 0);
	assert_int_equal(ps_ctr_names_oci("nope", 4, &n), -EINVAL);
}

static void storage_list(void **state)
{
	struct ps_ctr_names n = { 0 };

	(void)state;
	assert_int_equal(ps_ctr_names_storage(storage, strlen(storage), ID, &n), 0);
	/* One word: blanks and '=' would split the comment's words. */
	assert_string_equal(n.name, "shop_web_1");
	assert_string_equal(n.image, "localhost/bb:1");
	memset(&n, 0, sizeof(n));
	assert_int_equal(ps_ctr_names_storage(storage, strlen(storage), ID2, &n), 0);
	assert_string_equal(n.name, "other");
	assert_string_equal(n.image, "");
	assert_int_equal(ps_ctr_names_storage(storage, strlen(storage), "0123", &n), -ENOENT);
	assert_int_equal(ps_ctr_names_storage("{}", 2, ID, &n), -EINVAL);
	assert_int_equal(ps_ctr_names_storage("[1,\"x\",null]", 12, ID, &n), -ENOENT);
}

static void long_values(void **state)
{
	struct ps_ctr_names n = { 0 };
	char json[1024], name[300];

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(json, sizeof(json), "{\"Name\":\"/%s\",\"Config\":{\"Image\":\"%s\"}}", name,
		 name);
	assert_int_equal(ps_ctr_names_docker(json, strlen(json), &n), 0);
	assert_int_equal(strlen(n.name), sizeof(n.name) - 1);
	assert_int_equal(strlen(n.image), sizeof(n.image) - 1);
}

/* path under root, made with its folders, holding text. */
static void put(const char *root, const char *path, const char *text)
{
	char full[4096];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	for (char *s = strchr(full + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(full, 0700);
		*s = '/';
	}
	f = fopen(full, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void from_disk(void **state)
{
	char root[] = "/tmp/ctrnames.XXXXXX", cmd[64];
	struct ps_container c = { .kind = PS_CONTAINER_DOCKER, .id = ID };
	struct ps_ctr_names n;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* Nothing installed: no record, and nothing said. */
	assert_int_equal(ps_ctr_names_read(root, &c, &n), -ENOENT);
	assert_string_equal(n.name, "");
	c.kind = PS_CONTAINER_CONTAINERD;
	assert_int_equal(ps_ctr_names_read(root, &c, &n), -ENOENT);
	c.kind = PS_CONTAINER_PODMAN;
	assert_int_equal(ps_ctr_names_read(root, &c, &n), -ENOENT);

	put(root, "/var/lib/docker/containers/" ID "/config.v2.json", docker_cfg);
	c.kind = PS_CONTAINER_DOCKER;
	assert_int_equal(ps_ctr_names_read(root, &c, &n), 0);
	assert_string_equal(n.name, "shopweb");

	/* Podman: the pod's annotations in its OCI config, the name in the
	 * storage's (volatile) list. */
	put(root, "/var/lib/containers/storage/overlay-containers/" ID "/userdata/config.json",
	    crio_oci);
	put(root, "/var/lib/containers/storage/overlay-containers/volatile-containers.json",
	    storage);
	c.kind = PS_CONTAINER_PODMAN;
	assert_int_equal(ps_ctr_names_read(root, &c, &n), 0);
	assert_string_equal(n.pod, "cart-7d9f");
	assert_string_equal(n.name, "shop_web_1");
	assert_string_equal(n.image, "registry.example/cart:2");
	/* One in the list alone. */
	strcpy(c.id, ID2);
	assert_int_equal(ps_ctr_names_read(root, &c, &n), 0);
	assert_string_equal(n.name, "other");
	assert_string_equal(n.pod, "");

	/* containerd: the task's bundle, in whichever namespace. */
	put(root, "/run/containerd/io.containerd.runtime.v2.task/k8s.io/" ID2 "/config.json",
	    cri_containerd_oci);
	c.kind = PS_CONTAINER_CONTAINERD;
	assert_int_equal(ps_ctr_names_read(root, &c, &n), 0);
	assert_string_equal(n.pod, "cart-7d9f");
	assert_string_equal(n.k8s_container, "cart");
	strcpy(c.id, ID);
	assert_int_equal(ps_ctr_names_read(root, &c, &n), -ENOENT);

	/* A unit has no runtime. */
	c.kind = PS_CONTAINER_UNIT;
	assert_int_equal(ps_ctr_names_read(root, &c, &n), -ENOENT);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(docker),	cmocka_unit_test(oci),
		cmocka_unit_test(storage_list), cmocka_unit_test(long_values),
		cmocka_unit_test(from_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
