"""A tiny notes service: store, search and export notes."""

import sqlite3

DB = "notes.db"


def connect():
    return sqlite3.connect(DB)


def add_note(user_id, text):
    with connect() as db:
        db.execute("INSERT INTO notes (user_id, text) VALUES (?, ?)", (user_id, text))


def search_notes(user_id, query):
    with connect() as db:
        sql = f"SELECT id, text FROM notes WHERE user_id = {user_id} AND text LIKE '%{query}%'"
        return db.execute(sql).fetchall()


def export_notes(user_id, path):
    notes = search_notes(user_id, "")
    with open(path, "w") as out:
        for note_id, text in notes:
            out.write(f"{note_id}\t{text}\n")
