//! A scripted HTTP server on 127.0.0.1 with an ephemeral port, standing in for a model provider to
//! provoke its failure modes. It answers one scripted reply per connection (the last one repeats),
//! records every request body, and stops by itself after a few seconds.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One scripted reply.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Answer with this status, extra headers and body.
    Respond {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: String,
    },
    /// Read the request, then say nothing for this long and hang up.
    Stall(Duration),
}

impl Reply {
    pub fn json(status: u16, body: serde_json::Value) -> Self {
        Self::Respond {
            status,
            headers: Vec::new(),
            body: body.to_string(),
        }
    }

    pub fn raw(status: u16, body: &str) -> Self {
        Self::Respond {
            status,
            headers: Vec::new(),
            body: body.to_owned(),
        }
    }

    pub fn with_header(self, name: &'static str, value: &str) -> Self {
        match self {
            Self::Respond {
                status,
                mut headers,
                body,
            } => {
                headers.push((name, value.to_owned()));
                Self::Respond {
                    status,
                    headers,
                    body,
                }
            }
            stall => stall,
        }
    }
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub authorization: Option<String>,
    pub body: serde_json::Value,
}

/// The running server.
pub struct FakeServer {
    pub base_url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl FakeServer {
    pub fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        listener.set_nonblocking(true).unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&received);
        std::thread::spawn(move || {
            // Bounded in time and in connections, so a test never leaves a server behind for long.
            let deadline = Instant::now() + Duration::from_secs(20);
            let mut served = 0usize;
            while Instant::now() < deadline && served < 64 {
                let Ok((stream, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(2));
                    continue;
                };
                stream.set_nonblocking(false).unwrap();
                let reply = script[served.min(script.len() - 1)].clone();
                served += 1;
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut request_line = String::new();
                reader.read_line(&mut request_line).unwrap();
                let path = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("")
                    .to_owned();
                let (mut length, mut authorization) = (0usize, None);
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    if line.trim().is_empty() {
                        break;
                    }
                    let (name, value) = line.split_once(':').unwrap();
                    match name.to_ascii_lowercase().as_str() {
                        "content-length" => length = value.trim().parse().unwrap(),
                        "authorization" => authorization = Some(value.trim().to_owned()),
                        _ => {}
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let body = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
                log.lock().unwrap().push(Received {
                    path,
                    authorization,
                    body,
                });
                let mut stream = stream;
                match reply {
                    Reply::Stall(duration) => std::thread::sleep(duration),
                    Reply::Respond {
                        status,
                        headers,
                        body,
                    } => {
                        let mut response = format!(
                            "HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
                            body.len()
                        );
                        for (name, value) in headers {
                            response.push_str(&format!("{name}: {value}\r\n"));
                        }
                        response.push_str("\r\n");
                        response.push_str(&body);
                        let _ = stream.write_all(response.as_bytes());
                    }
                }
            }
        });
        Self { base_url, received }
    }

    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// A chat completion answer with these contents, in reverse index order to check sorting.
pub fn chat_answer(contents: &[&str]) -> serde_json::Value {
    let choices: Vec<_> = contents
        .iter()
        .enumerate()
        .rev()
        .map(|(i, c)| serde_json::json!({"index": i, "message": {"role": "assistant", "content": c}, "finish_reason": "stop"}))
        .collect();
    serde_json::json!({"choices": choices, "usage": {"prompt_tokens": 42, "completion_tokens": 10 * contents.len()}})
}
