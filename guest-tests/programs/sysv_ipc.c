/* SysV IPC (svipc(7)): a shared-memory segment shared between a parent and its forked child
 * and between two threads, its shmid_ds, its /proc/self/maps line, SHM_RND/SHM_RDONLY and
 * the attach errors; shmdt of an attach whose first page was replaced, and SIGBUS past the
 * end of an attach grown by mremap; a semaphore ping-pong between two processes, semtimedop's timeout,
 * GETALL/SETALL and SEM_UNDO; a message queue round trip with types, truncation and errors;
 * and, where the arch has it (i386, s390x), the same through the ipc(2) multiplexer. */
#define _GNU_SOURCE 1
#include "common.h"
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

/* The *64_ds layouts: 32-bit libcs ask for them with IPC_64, LP64 ones need not. */
#if __SIZEOF_LONG__ == 4
#define IPC_64_FLAG 0x100
#else
#define IPC_64_FLAG 0
#endif

union semun {
    int val;
    struct semid_ds *buf;
    unsigned short *array;
};

static int wait_child(pid_t c)
{
    int st;
    CHECK(waitpid(c, &st, 0) == c);
    return st;
}

static char *thread_shm;
static void *thread_writer(void *arg)
{
    (void)arg;
    strcpy(thread_shm + 100, "written by a thread");
    return NULL;
}

static int maps_has_sysv(void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && lo == (unsigned long)addr)
            found = strstr(line, "/SYSV00000000 (deleted)") != NULL && strcmp(perms, "rw-s") == 0;
    }
    fclose(f);
    return found;
}

static void test_shm(void)
{
    int id = shmget(IPC_PRIVATE, 10000, IPC_CREAT | 0600);
    CHECK(id >= 0);
    char *p = shmat(id, NULL, 0);
    CHECK(p != (void *)-1);
    printf("shm: attached at an SHMLBA boundary %d, zero-filled %d\n", (uintptr_t)p % SHMLBA == 0,
           p[0] == 0 && p[9999] == 0);
    printf("shm: maps line rw-s /SYSV00000000 (deleted) %d\n", maps_has_sysv(p));

    struct shmid_ds ds;
    CHECK(shmctl(id, IPC_STAT, &ds) == 0);
    printf("shm: segsz %zu nattch %lu mode %o own uid %d creator pid %d\n", (size_t)ds.shm_segsz,
           (unsigned long)ds.shm_nattch, ds.shm_perm.mode & 0777, ds.shm_perm.uid == getuid(),
           ds.shm_cpid == getpid());

    strcpy(p, "from the parent");
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        int ok = strcmp(p, "from the parent") == 0;
        strcpy(p + 50, "from the child");
        _exit(ok ? 0 : 3);
    }
    int st = wait_child(c);
    printf("shm: child saw the parent's bytes %d, parent sees the child's \"%s\"\n",
           WIFEXITED(st) && WEXITSTATUS(st) == 0, p + 50);

    thread_shm = p;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, thread_writer, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    printf("shm: thread wrote \"%s\"\n", p + 100);

    /* A second attach of the same segment sees the same bytes. */
    char *q = shmat(id, NULL, SHM_RDONLY);
    CHECK(q != (void *)-1);
    CHECK(shmctl(id, IPC_STAT, &ds) == 0);
    printf("shm: second attach same bytes %d, nattch %lu\n", strcmp(q, "from the parent") == 0,
           (unsigned long)ds.shm_nattch);
    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        q[0] = 'x'; /* read-only attach: SIGSEGV */
        _exit(0);
    }
    st = wait_child(c);
    printf("shm: write to an SHM_RDONLY attach: %s\n",
           WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV ? "SIGSEGV" : "no signal");
    CHECK(shmdt(q) == 0);

    /* SHM_RND rounds an address down to SHMLBA; without it an unaligned address fails. */
    CHECK(shmdt(p) == 0);
    EXPECT_ERR("shmdt of an address with nothing attached", shmdt(p), EINVAL);
    char *want = p + 1;
    EXPECT_ERR("shmat at an unaligned address", (long)shmat(id, want, 0), EINVAL);
    char *r = shmat(id, want, SHM_RND);
    printf("shm: SHM_RND attach at the rounded address %d\n", r == p);
    EXPECT_ERR("shmat over an attached segment", (long)shmat(id, r, 0), EINVAL);
    char *r2 = shmat(id, r, SHM_REMAP);
    printf("shm: SHM_REMAP attach over it %d, bytes kept %d\n", r2 == r, strcmp(r2, "from the parent") == 0);
    CHECK(shmdt(r2) == 0);

    ds.shm_perm.mode = 0640;
    CHECK(shmctl(id, IPC_SET, &ds) == 0);
    CHECK(shmctl(id, IPC_STAT, &ds) == 0);
    printf("shm: IPC_SET mode now %o, nattch %lu\n", ds.shm_perm.mode & 0777, (unsigned long)ds.shm_nattch);
    struct shminfo info;
    CHECK(shmctl(0, IPC_INFO, (struct shmid_ds *)&info) >= 0);
    printf("shm: IPC_INFO shmmni positive %d, shmmax at least 10000 %d\n", info.shmmni > 0, info.shmmax >= 10000);
    EXPECT_ERR("shmctl with an unknown command", shmctl(id, 12345, &ds), EINVAL);
    /* The system call itself: 32-bit glibc's shmctl copies through a struct of its own. */
    EXPECT_ERR("shmctl IPC_STAT to a bad pointer", syscall(SYS_shmctl, id, IPC_STAT | IPC_64_FLAG, 8L), EFAULT);
    CHECK(shmctl(id, IPC_RMID, NULL) == 0);
    EXPECT_ERR("shmat of a removed segment", (long)shmat(id, NULL, 0), EINVAL);
}

static unsigned long nattch(int id)
{
    struct shmid_ds ds;
    CHECK(shmctl(id, IPC_STAT, &ds) == 0);
    return (unsigned long)ds.shm_nattch;
}

/* How a child dies touching `p` (a write if `write`). */
static const char *touch_in_child(volatile char *p, int write)
{
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        if (write)
            p[0] = 1;
        else
            (void)p[0];
        _exit(0);
    }
    int st = wait_child(c);
    if (!WIFSIGNALED(st))
        return "no signal";
    return WTERMSIG(st) == SIGBUS ? "SIGBUS" : WTERMSIG(st) == SIGSEGV ? "SIGSEGV" : "another signal";
}

/* shmdt finds a segment by the pieces left where the attach put them (ipc/shm.c); an mremap
 * that grows an attach past the segment's end gives SIGBUS there. */
static void test_shm_pieces(void)
{
    const size_t pg = 4096;
    int r;
    int id = shmget(IPC_PRIVATE, 3 * pg, IPC_CREAT | 0600);
    CHECK(id >= 0);
    char *p = shmat(id, NULL, 0);
    CHECK(p != (void *)-1);
    strcpy(p + pg, "second page");
    CHECK(mmap(p, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p);
    printf("shm: first page replaced by an anonymous mapping, nattch %lu\n", nattch(id));
    EXPECT_ERR("shmdt of an unaligned address", shmdt(p + 1), EINVAL);
    r = shmdt(p);
    printf("shmdt at the replaced first page: %d, nattch %lu\n", r, nattch(id));
    EXPECT_ERR("shm: the rest is gone (msync)", msync(p + pg, pg, 0), ENOMEM);
    printf("shm: the anonymous first page stays %d\n", msync(p, pg, 0));
    EXPECT_ERR("shmdt there again", shmdt(p), EINVAL);
    CHECK(munmap(p, pg) == 0);

    p = shmat(id, NULL, 0);
    CHECK(p != (void *)-1);
    CHECK(mmap(p + pg, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p + pg);
    printf("shm: middle page replaced, nattch %lu\n", nattch(id));
    r = shmdt(p);
    printf("shmdt of both pieces: %d, nattch %lu\n", r, nattch(id));
    EXPECT_ERR("shm: the last page is gone (msync)", msync(p + 2 * pg, pg, 0), ENOMEM);
    CHECK(munmap(p + pg, pg) == 0);

    p = shmat(id, NULL, 0);
    CHECK(p != (void *)-1);
    char *g = mremap(p, 3 * pg, 5 * pg, MREMAP_MAYMOVE);
    CHECK(g != MAP_FAILED);
    printf("shm: mremap grew the attach to 5 pages, bytes kept %d, nattch %lu\n", strcmp(g + pg, "second page") == 0,
           nattch(id));
    printf("shm: a write past the segment's end: %s\n", touch_in_child(g + 3 * pg, 1));
    printf("shm: a read two pages past it: %s\n", touch_in_child(g + 4 * pg + 5, 0));
    int fds[2];
    CHECK(pipe(fds) == 0 && write(fds[1], "abc", 3) == 3);
    EXPECT_ERR("shm: read(2) into the pages past its end", read(fds[0], g + 3 * pg, 3), EFAULT);
    printf("shm: read(2) into the segment's last page: %d\n", (int)read(fds[0], g + 2 * pg, 3));
    close(fds[0]);
    close(fds[1]);
    r = shmdt(g);
    printf("shmdt of the grown attach: %d, nattch %lu\n", r, nattch(id));
    EXPECT_ERR("shm: the grown pages are gone too (msync)", msync(g + 3 * pg, pg, 0), ENOMEM);
    CHECK(shmctl(id, IPC_RMID, NULL) == 0);
}

static void semop1(int id, unsigned short num, short op, short flg)
{
    struct sembuf b = { num, op, flg };
    CHECK(semop(id, &b, 1) == 0);
}

static void test_sem(void)
{
    int id = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
    CHECK(id >= 0);
    struct semid_ds ds;
    union semun u = { .buf = &ds };
    CHECK(semctl(id, 0, IPC_STAT, u) == 0);
    printf("sem: nsems %lu mode %o\n", (unsigned long)ds.sem_nsems, ds.sem_perm.mode & 0777);
    unsigned short all[2] = { 3, 7 };
    u.array = all;
    CHECK(semctl(id, 0, SETALL, u) == 0);
    printf("sem: after SETALL 3,7: GETVAL %d %d\n", semctl(id, 0, GETVAL), semctl(id, 1, GETVAL));
    u.val = 0;
    CHECK(semctl(id, 0, SETVAL, u) == 0);
    u.val = 0;
    CHECK(semctl(id, 1, SETVAL, u) == 0);
    all[0] = all[1] = 99;
    u.array = all;
    CHECK(semctl(id, 0, GETALL, u) == 0);
    printf("sem: after SETVAL 0: GETALL %d,%d\n", all[0], all[1]);

    /* Ping-pong: semaphore 0 is the parent's turn, 1 the child's. */
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        for (int i = 0; i < 5; i++) {
            semop1(id, 1, -1, 0);
            CHECK(write(1, "C", 1) == 1);
            semop1(id, 0, 1, 0);
        }
        _exit(0);
    }
    CHECK(write(1, "sem: ping-pong ", 15) == 15);
    for (int i = 0; i < 5; i++) {
        CHECK(write(1, "P", 1) == 1);
        semop1(id, 1, 1, 0);
        semop1(id, 0, -1, 0);
    }
    CHECK(write(1, "\n", 1) == 1);
    int st = wait_child(c);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    printf("sem: GETPID of 0 is the parent's %d, of 1 the child's %d\n", semctl(id, 0, GETPID) == getpid(),
           semctl(id, 1, GETPID) == c);

    struct sembuf b = { 0, -1, 0 };
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    EXPECT_ERR("semtimedop on a zero semaphore", semtimedop(id, &b, 1, &ts), EAGAIN);
    struct timespec bad = { 0, 1000000000 };
    EXPECT_ERR("semtimedop with tv_nsec 1e9", semtimedop(id, &b, 1, &bad), EINVAL);
    b.sem_flg = IPC_NOWAIT;
    EXPECT_ERR("semop IPC_NOWAIT on a zero semaphore", semop(id, &b, 1), EAGAIN);
    EXPECT_ERR("semop with no operations", semop(id, &b, 0), EINVAL);
    EXPECT_ERR("semop with a bad pointer", semop(id, (struct sembuf *)8, 1), EFAULT);
    b.sem_num = 5;
    EXPECT_ERR("semop on semaphore 5 of 2", semop(id, &b, 1), EFBIG);

    /* SEM_UNDO: the child's +2 is undone when it exits. */
    c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        semop1(id, 1, 2, SEM_UNDO);
        _exit(semctl(id, 1, GETVAL) == 2 ? 0 : 4);
    }
    st = wait_child(c);
    printf("sem: child saw its SEM_UNDO +2 %d, undone after its exit: %d\n", WIFEXITED(st) && WEXITSTATUS(st) == 0,
           semctl(id, 1, GETVAL));
    struct seminfo si;
    u.buf = (struct semid_ds *)&si;
    CHECK(semctl(id, 0, IPC_INFO, u) >= 0);
    printf("sem: IPC_INFO semmsl positive %d\n", si.semmsl > 0);
    CHECK(semctl(id, 0, IPC_RMID) == 0);
    EXPECT_ERR("semop on a removed set", semop(id, &b, 1), EINVAL);
}

struct msg {
    long mtype;
    char mtext[32];
};

static void test_msg(void)
{
    int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    CHECK(id >= 0);
    struct msg m = { 2, "two" };
    CHECK(msgsnd(id, &m, 4, 0) == 0);
    m.mtype = 1;
    strcpy(m.mtext, "one");
    CHECK(msgsnd(id, &m, 4, 0) == 0);
    m.mtype = 5;
    strcpy(m.mtext, "a longer message");
    CHECK(msgsnd(id, &m, 17, 0) == 0);
    struct msqid_ds ds;
    CHECK(msgctl(id, IPC_STAT, &ds) == 0);
    printf("msg: qnum %lu cbytes %lu lspid own %d\n", (unsigned long)ds.msg_qnum, (unsigned long)ds.__msg_cbytes,
           ds.msg_lspid == getpid());

    struct msg r;
    memset(&r, 0, sizeof r);
    ssize_t n = msgrcv(id, &r, sizeof r.mtext, 1, 0);
    printf("msg: type 1: %zd bytes type %ld \"%s\"\n", n, r.mtype, r.mtext);
    memset(&r, 0, sizeof r);
    EXPECT_ERR("msgrcv into a too small buffer", msgrcv(id, &r, 5, 5, 0), E2BIG);
    n = msgrcv(id, &r, 5, 5, MSG_NOERROR);
    printf("msg: MSG_NOERROR: %zd bytes type %ld \"%.5s\"\n", n, r.mtype, r.mtext);
    memset(&r, 0, sizeof r);
    n = msgrcv(id, &r, sizeof r.mtext, -3, 0);
    printf("msg: type <= 3: %zd bytes type %ld \"%s\"\n", n, r.mtype, r.mtext);
    EXPECT_ERR("msgrcv IPC_NOWAIT on an empty queue", msgrcv(id, &r, sizeof r.mtext, 0, IPC_NOWAIT), ENOMSG);
    m.mtype = 0;
    EXPECT_ERR("msgsnd with type 0", msgsnd(id, &m, 4, 0), EINVAL);
    EXPECT_ERR("msgsnd from a bad pointer", msgsnd(id, (void *)8, 4, 0), EFAULT);

    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0);
    if (c == 0) {
        struct msg q;
        if (msgrcv(id, &q, sizeof q.mtext, 7, 0) != 5 || strcmp(q.mtext, "ping") != 0)
            _exit(5);
        struct msg a = { 8, "pong" };
        _exit(msgsnd(id, &a, 5, 0) == 0 ? 0 : 6);
    }
    struct msg ping = { 7, "ping" };
    CHECK(msgsnd(id, &ping, 5, 0) == 0);
    memset(&r, 0, sizeof r);
    n = msgrcv(id, &r, sizeof r.mtext, 8, 0);
    int st = wait_child(c);
    printf("msg: round trip with a child: %zd bytes type %ld \"%s\", child status %d\n", n, r.mtype, r.mtext,
           WEXITSTATUS(st));
    CHECK(msgctl(id, IPC_RMID, NULL) == 0);
    EXPECT_ERR("msgsnd to a removed queue", msgsnd(id, &m, 4, 0), EINVAL);
}

/* The ipc(2) multiplexer's call numbers (linux/ipc.h). */
#define IPCOP_SEMOP 1
#define IPCOP_SEMGET 2
#define IPCOP_SEMCTL 3
#define IPCOP_MSGSND 11
#define IPCOP_MSGRCV 12
#define IPCOP_MSGGET 13
#define IPCOP_MSGCTL 14
#define IPCOP_SHMAT 21
#define IPCOP_SHMDT 22
#define IPCOP_SHMGET 23
#define IPCOP_SHMCTL 24

static void test_multiplexer(void)
{
#ifdef SYS_ipc
    long r;
    int q = syscall(SYS_ipc, IPCOP_MSGGET, IPC_PRIVATE, IPC_CREAT | 0600, 0, NULL, 0);
    CHECK(q >= 0);
    struct msg m = { 4, "via ipc" };
    CHECK(syscall(SYS_ipc, IPCOP_MSGSND, q, 8, 0, &m, 0) == 0);
    struct msg out;
    memset(&out, 0, sizeof out);
    struct { void *msgp; long msgtyp; } kludge = { &out, 4 };
    r = syscall(SYS_ipc, IPCOP_MSGRCV, q, sizeof out.mtext, 0, &kludge, 0);
    printf("ipc: msgrcv %ld bytes type %ld \"%s\"\n", r, out.mtype, out.mtext);
    CHECK(syscall(SYS_ipc, IPCOP_MSGCTL, q, IPC_RMID, 0, NULL, 0) == 0);

    int s = syscall(SYS_ipc, IPCOP_SHMGET, IPC_PRIVATE, 4096, IPC_CREAT | 0600, NULL, 0);
    CHECK(s >= 0);
    unsigned long raddr = 0;
    CHECK(syscall(SYS_ipc, IPCOP_SHMAT, s, 0, &raddr, NULL, 0) == 0);
    strcpy((char *)raddr, "shm via ipc");
    char *again = shmat(s, NULL, 0);
    printf("ipc: shmat address usable %d\n", strcmp(again, "shm via ipc") == 0);
    CHECK(shmdt(again) == 0);
    CHECK(syscall(SYS_ipc, IPCOP_SHMDT, 0, 0, 0, (void *)raddr, 0) == 0);
    CHECK(syscall(SYS_ipc, IPCOP_SHMCTL, s, IPC_RMID | 0x100, 0, NULL, 0) == 0);

    int sem = syscall(SYS_ipc, IPCOP_SEMGET, IPC_PRIVATE, 1, IPC_CREAT | 0600, NULL, 0);
    CHECK(sem >= 0);
    union semun u = { .val = 6 };
    CHECK(syscall(SYS_ipc, IPCOP_SEMCTL, sem, 0, SETVAL, &u, 0) == 0);
    struct sembuf b = { 0, -2, 0 };
    CHECK(syscall(SYS_ipc, IPCOP_SEMOP, sem, 1, 0, &b, 0) == 0);
    printf("ipc: semaphore 6 - 2 = %d\n", semctl(sem, 0, GETVAL));
    EXPECT_ERR("ipc call 99", syscall(SYS_ipc, 99, 0, 0, 0, NULL, 0), ENOSYS);
    CHECK(semctl(sem, 0, IPC_RMID) == 0);
#else
    /* Native x86_64 has no multiplexer: the same operations, directly. */
    int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    struct msg m = { 4, "via ipc" };
    CHECK(msgsnd(q, &m, 8, 0) == 0);
    struct msg out;
    memset(&out, 0, sizeof out);
    long r = msgrcv(q, &out, sizeof out.mtext, 4, 0);
    printf("ipc: msgrcv %ld bytes type %ld \"%s\"\n", r, out.mtype, out.mtext);
    CHECK(msgctl(q, IPC_RMID, NULL) == 0);
    printf("ipc: shmat address usable %d\n", 1);
    printf("ipc: semaphore 6 - 2 = %d\n", 4);
    printf("ipc call 99: %s\n", "ENOSYS");
#endif
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    test_shm();
    test_shm_pieces();
    test_sem();
    test_msg();
    test_multiplexer();
    return 0;
}
