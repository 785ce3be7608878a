//! Serving an axum app on `127.0.0.1` from its own thread and runtime (so
//! async tests and blocking ones, which run the CLI, are served alike), with
//! every byte received kept per connection, so a test can prove what a client
//! put on the wire and where.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::Router;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::server::lock;

/// The bytes one connection received so far.
type Received = Arc<Mutex<Vec<u8>>>;

/// The bytes received on each connection, in accept order.
#[derive(Clone, Default)]
pub(crate) struct Wire(Arc<Mutex<Vec<Received>>>);

impl Wire {
    fn open(&self) -> Received {
        let conn = Arc::new(Mutex::new(Vec::new()));
        lock(&self.0).push(Arc::clone(&conn));
        conn
    }

    /// Every connection's bytes so far.
    pub(crate) fn connections(&self) -> Vec<Vec<u8>> {
        lock(&self.0).iter().map(|c| lock(c).clone()).collect()
    }
}

/// A running server; stops when dropped.
pub(crate) struct Running {
    pub(crate) addr: SocketAddr,
    pub(crate) wire: Wire,
    shutdown: Option<oneshot::Sender<()>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// A listener bound on `127.0.0.1:0`, so the app can know its own URL
/// (pagination links are absolute) before it is built.
pub(crate) fn bind() -> io::Result<std::net::TcpListener> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Serves `app` on `listener` from a thread named `name-PORT`.
pub(crate) fn serve(
    listener: std::net::TcpListener,
    app: Router,
    name: &str,
) -> io::Result<Running> {
    let addr = listener.local_addr()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let wire = Wire::default();
    let tapped = wire.clone();
    let (tx, rx) = oneshot::channel::<()>();
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<io::Result<()>>();
    std::thread::Builder::new()
        .name(format!("{name}-{}", addr.port()))
        .spawn(move || {
            runtime.block_on(async move {
                let listener = match TcpListener::from_std(listener) {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                let serve = axum::serve(
                    Tap {
                        listener,
                        wire: tapped,
                    },
                    app,
                );
                // Dropping the runtime at shutdown also ends every open
                // connection, stalled ones included.
                tokio::select! {
                    _ = serve => {}
                    _ = rx => {}
                }
            });
        })?;
    ready_rx
        .recv()
        .map_err(|_| io::Error::other("server thread exited early"))??;
    Ok(Running {
        addr,
        wire,
        shutdown: Some(tx),
    })
}

struct Tap {
    listener: TcpListener,
    wire: Wire,
}

impl axum::serve::Listener for Tap {
    type Io = TappedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            match self.listener.accept().await {
                Ok((stream, addr)) => {
                    let seen = self.wire.open();
                    return (TappedStream { stream, seen }, addr);
                }
                // Out of file descriptors and the like: wait, as axum does.
                Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.listener.local_addr()
    }
}

/// A connection that keeps a copy of what it reads.
pub(crate) struct TappedStream {
    stream: TcpStream,
    seen: Received,
}

impl AsyncRead for TappedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            lock(&self.seen).extend_from_slice(&buf.filled()[before..]);
        }
        polled
    }
}

impl AsyncWrite for TappedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
