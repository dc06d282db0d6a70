/* What Linux answers where endgate once answered otherwise (issue 11's list): a
 * synchronous-kind signal sent with kill() to a process that ignores it is ignored;
 * SA_RESETHAND keeps SA_SIGINFO; the signal F_SETSIG chose carries si_fd; F_GETOWN_EX;
 * F_SETLK seen from a child; mremap onto an overlapping range, munmap's EINVALs,
 * clock_nanosleep on clocks that cannot sleep, timer_settime's EINVAL, recvmsg with more
 * than UIO_MAXIOV iovecs, IPV6_ADDRFORM, posix_fadvise's DONTNEED/NOREUSE (other numbers
 * on s390x). */
#define _GNU_SOURCE 1
#include "common.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
static volatile int got; static volatile int gotfd; static volatile int gotsiginfo;
static void h(int s, siginfo_t *si, void *u){(void)u; got=s; gotfd=si->si_fd; gotsiginfo=1;}
int main(void){
  setvbuf(stdout,NULL,_IONBF,0);
  /* kill() of an ignored synchronous signal */
  pid_t c=fork(); if(c==0){ signal(SIGSEGV,SIG_IGN); kill(getpid(),SIGSEGV); signal(SIGILL,SIG_IGN); kill(getpid(),SIGILL); signal(SIGBUS,SIG_IGN); raise(SIGBUS); signal(SIGFPE,SIG_IGN); raise(SIGFPE); signal(SIGTRAP,SIG_IGN); raise(SIGTRAP); _exit(7);} int st; waitpid(c,&st,0);
  printf("ignored SIGSEGV/SIGILL/SIGBUS/SIGFPE/SIGTRAP from kill: exited %d status %d\n",WIFEXITED(st),WEXITSTATUS(st));
  /* SA_RESETHAND keeps SA_SIGINFO */
  struct sigaction sa={0}; sa.sa_sigaction=h; sa.sa_flags=SA_SIGINFO|SA_RESETHAND; sigaction(SIGUSR1,&sa,NULL);
  struct sigaction old; sigaction(SIGUSR1,NULL,&old); printf("SA_RESETHAND|SA_SIGINFO read back: siginfo %d resethand %d\n",(old.sa_flags&SA_SIGINFO)!=0,(old.sa_flags&SA_RESETHAND)!=0);
  raise(SIGUSR1); sigaction(SIGUSR1,NULL,&old); printf("after delivery: handler default %d, siginfo handler ran %d\n",old.sa_handler==SIG_DFL,gotsiginfo);
  /* F_SETSIG si_fd */
  int p[2]; pipe(p); sa.sa_flags=SA_SIGINFO; sigaction(SIGRTMIN+1,&sa,NULL);
  fcntl(p[0],F_SETOWN,getpid()); fcntl(p[0],F_SETSIG,SIGRTMIN+1); fcntl(p[0],F_SETFL,O_ASYNC|O_NONBLOCK);
  got=0; write(p[1],"x",1); for(int i=0;i<5000&&!got;i++) usleep(1000);
  printf("F_SETSIG: signal %d, si_fd is the pipe %d\n",got==SIGRTMIN+1,gotfd==p[0]);
  /* F_GETOWN_EX */
  struct f_owner_ex ox; int r=fcntl(p[0],F_GETOWN_EX,&ox); printf("F_GETOWN_EX: %d type PID %d pid own %d\n",r,ox.type==F_OWNER_PID,ox.pid==getpid());
  /* F_SETLK */
  char path[]="lkXXXXXX"; int fd=mkstemp(path); unlink(path); struct flock fl={.l_type=F_WRLCK,.l_whence=SEEK_SET,.l_start=0,.l_len=10};
  printf("F_SETLK: %d\n",fcntl(fd,F_SETLK,&fl)); struct flock g={.l_type=F_WRLCK,.l_whence=SEEK_SET}; 
  c=fork(); if(c==0){ fcntl(fd,F_GETLK,&g); _exit(g.l_type==F_WRLCK && g.l_pid==getppid()?0:1);} waitpid(c,&st,0); printf("F_GETLK in a child sees the lock: %d\n",WEXITSTATUS(st)==0);
  /* mremap overlap */
  char *m=mmap(NULL,8*4096,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
  EXPECT_ERR("mremap onto an overlapping range",(long)mremap(m,4*4096,4*4096,MREMAP_MAYMOVE|MREMAP_FIXED,m+2*4096),EINVAL);
  EXPECT_ERR("munmap of an unaligned address",munmap(m+1,4096),EINVAL);
  EXPECT_ERR("munmap of length 0",munmap(m,0),EINVAL);
  EXPECT_ERR("munmap beyond the address space",munmap((void*)-4096L,8192),EINVAL);
  /* clock_nanosleep on CLOCK_THREAD_CPUTIME_ID */
  struct timespec ts={0,1000}; int e=clock_nanosleep(CLOCK_THREAD_CPUTIME_ID,0,&ts,NULL); printf("clock_nanosleep(CLOCK_THREAD_CPUTIME_ID): %s\n",e?errname(e):"0");
  e=clock_nanosleep(CLOCK_MONOTONIC_RAW,0,&ts,NULL); printf("clock_nanosleep(CLOCK_MONOTONIC_RAW): %s\n",e?errname(e):"0"); e=clock_nanosleep(CLOCK_MONOTONIC_COARSE,0,&ts,NULL); printf("clock_nanosleep(CLOCK_MONOTONIC_COARSE): %s\n",e?errname(e):"0");
  /* timer_settime bad */
  timer_t t; timer_create(CLOCK_MONOTONIC,NULL,&t); struct itimerspec its={{0,0},{0,2000000000}};
  EXPECT_ERR("timer_settime with tv_nsec 2e9",timer_settime(t,0,&its,NULL),EINVAL);
  /* recvmsg EMSGSIZE? */
  int sv[2]; socketpair(AF_UNIX,SOCK_DGRAM,0,sv); struct msghdr mh={0}; mh.msg_iovlen=2000; struct iovec iv[1]; mh.msg_iov=iv;
  EXPECT_ERR("recvmsg with 2000 iovecs",recvmsg(sv[0],&mh,MSG_DONTWAIT),EMSGSIZE);
  /* IPV6_ADDRFORM */
  int s6=socket(AF_INET6,SOCK_STREAM,0); int v=AF_INET; r=setsockopt(s6,IPPROTO_IPV6,IPV6_ADDRFORM,&v,sizeof v); printf("IPV6_ADDRFORM on an unconnected socket: %s\n",r?errname(errno):"0");
  /* fadvise */
  printf("posix_fadvise DONTNEED: %d NOREUSE: %d\n",posix_fadvise(fd,0,0,POSIX_FADV_DONTNEED),posix_fadvise(fd,0,0,POSIX_FADV_NOREUSE));
  return 0;}
