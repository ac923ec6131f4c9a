(function () {
  var detail = document.getElementById("detail");
  function show(cell) {
    var recs = cell.dataset.records ? cell.dataset.records.split("\n") : [];
    detail.textContent = "";
    var head = document.createElement("strong");
    head.textContent = cell.dataset.path + " · chars " + cell.dataset.chars;
    detail.appendChild(head);
    var list = document.createElement("ul");
    if (!recs.length) { var li = document.createElement("li"); li.textContent = "no record labels this chunk"; list.appendChild(li); }
    recs.forEach(function (r) { var li = document.createElement("li"); li.textContent = r; list.appendChild(li); });
    detail.appendChild(list);
  }
  document.querySelectorAll(".strip .cell").forEach(function (cell) {
    cell.addEventListener("focus", function () { show(cell); });
    cell.addEventListener("mouseenter", function () { show(cell); });
  });
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th button").forEach(function (button, col) {
      button.addEventListener("click", function () {
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        var numeric = button.dataset.numeric, dir = button.dataset.dir === "asc" ? -1 : 1;
        button.dataset.dir = dir === 1 ? "asc" : "desc";
        rows.sort(function (a, b) {
          var x = a.cells[col].dataset.value || a.cells[col].textContent, y = b.cells[col].dataset.value || b.cells[col].textContent;
          return dir * (numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y));
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
})();
